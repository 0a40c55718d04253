import fs from 'node:fs';
import { builtinModules } from 'node:module';

/**
 * How the `teamstage` command is bundled (esbuild options), shared by scripts/bundle.mjs and the test that
 * bundles the sources the same way (test/process/pipeline-cli.test.ts).
 * Left outside the bundle: better-sqlite3 (a native addon, found at run time) and pg-native (an optional
 * peer of pg that is not installed).
 */
export function bundleOptions(entryPoint, outfile) {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'pg-native'],
    // CommonJS dependencies inside an ES module bundle still call require() and read __dirname.
    banner: {
      js: [
        "import { createRequire as __teamstageCreateRequire } from 'node:module';",
        "import { fileURLToPath as __teamstageFileURLToPath } from 'node:url';",
        "import { dirname as __teamstageDirname } from 'node:path';",
        'const require = __teamstageCreateRequire(import.meta.url);',
        'const __filename = __teamstageFileURLToPath(import.meta.url);',
        'const __dirname = __teamstageDirname(__filename);',
      ].join('\n'),
    },
    logLevel: 'warning',
  };
}

/**
 * The standalone pipeline client (src/pipeline/pipeline-main.ts → dist/bundle/teamstage-pipeline.mjs), which
 * the server serves at /pipeline/teamstage-pipeline.mjs for CI jobs to fetch with one curl: no native module,
 * no server code, nothing outside Node's own modules, so it runs with a bare `node`. Its version is written
 * in, since no package.json travels with it (src/core/version.ts).
 */
export function pipelineBundleOptions(entryPoint, outfile, version) {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    define: { TEAMSTAGE_BUILD_VERSION: JSON.stringify(version) },
    metafile: true,
    logLevel: 'warning',
  };
}

/** Throws unless every import the bundle left outside is one of Node's own modules. */
export function assertSelfContained(metafile) {
  const outside = Object.values(metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((imported) => imported.external && !imported.path.startsWith('node:') && !builtinModules.includes(imported.path))
    .map((imported) => imported.path);
  if (outside.length > 0) throw new Error(`the pipeline client must not import anything but node: modules; it imports ${[...new Set(outside)].join(', ')}`);
}

/**
 * Rewrites the characters outside ASCII that esbuild leaves in a bundle (only in comments it keeps: its output
 * escapes them everywhere else) as \u escapes. Why: V8 holds a module's source for as long as the process runs,
 * and one character outside Latin-1 makes it hold the whole 5 MB bundle as a two-byte string (10 MB of heap
 * instead of 5; issue 39).
 */
export function keepAscii(file) {
  const source = fs.readFileSync(file, 'utf8');
  const ascii = source.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== source) fs.writeFileSync(file, ascii);
}
