/**
 * Bundles the compiled server (dist/src, from tsc) and its dependencies into one file,
 * dist/bundle/teamstage.mjs, which `npm start` and the `teamstage` command run.
 *
 * Why: Node 20 has no compile cache, and loading the server as ~1,500 separate ES modules (Kysely, TypeBox,
 * undici and Fastify are each hundreds of files) cost about 0.6 s of CPU on every start; one file loads in
 * about a third of that. tsc still type-checks and compiles; esbuild only joins the output.
 * Left outside the bundle: better-sqlite3 (a native addon, found at run time) and pg-native (an optional
 * peer of pg that is not installed).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const BUNDLE = path.join('dist', 'bundle', 'teamstage.mjs');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [path.join(root, 'dist', 'src', 'cli.js')],
  outfile: path.join(root, BUNDLE),
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
});
