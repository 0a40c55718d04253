/**
 * `npm start`: the built server (one bundled file, scripts/bundle.mjs), rebuilt first only when a source is
 * newer than the build (build-if-stale.mjs). It is imported into this same process rather than started as
 * another one: a second Node start would cost a tenth of the time to ready.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildIfStale(root);
// The CLI reads its command from process.argv (`node scripts/start.mjs serve`).
await import(path.join(root, 'dist', 'bundle', 'teamstage.mjs'));
