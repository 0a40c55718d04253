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
