/**
 * Builds the web console (src/web, Preact + TypeScript) into dist/web for the server to serve at /app
 * (src/http/routes/console.routes.ts). Run by `npm run build`, so `npm ci` builds it through `prepare`.
 *
 * - esbuild bundles and minifies src/web/main.tsx; file names carry a content hash, so the server can
 *   let browsers cache them for ever (Cache-Control immutable) and only index.html is revalidated.
 * - Every asset is also written pre-compressed (.br, .gz) with node:zlib: the server picks one by the
 *   request's Accept-Encoding and never compresses at request time.
 * - Nothing is fetched at run time: no CDN, no web font; index.html names only files of dist/web.
 * Type checking is `npm run typecheck` (src/web/tsconfig.json): esbuild only strips types.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_OUT = path.join(root, 'dist', 'web');

/** Builds into `outDir` (dist/web unless a test builds elsewhere); returns the asset names written. */
export async function buildWeb(outDir = WEB_OUT) {
  fs.rmSync(outDir, { recursive: true, force: true });
  const assets = path.join(outDir, 'assets');
  const result = await build({
    entryPoints: [path.join(root, 'src', 'web', 'main.tsx'), path.join(root, 'src', 'web', 'styles', 'console.css')],
    outdir: assets,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`web build wrote no script or style: ${outputs.join(', ')}`);
  const template = fs.readFileSync(path.join(root, 'src', 'web', 'index.html'), 'utf8');
  const html = template.replace('%STYLE%', `/app/assets/${style}`).replace('%SCRIPT%', `/app/assets/${script}`);
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
  for (const file of [path.join(outDir, 'index.html'), ...outputs.map((name) => path.join(assets, name))]) compress(file);
  return outputs;
}

function compress(file) {
  const body = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  fs.writeFileSync(
    `${file}.br`,
    zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outputs = await buildWeb();
  console.log(`web console built: ${outputs.join(', ')}`);
}
