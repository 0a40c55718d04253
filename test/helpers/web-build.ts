import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb, WEB_OUT } from '../../scripts/build-web.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const INPUTS = [path.join(root, 'src', 'web'), path.join(root, 'scripts', 'build-web.mjs')];

function newest(file: string): number {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(file).reduce((max, entry) => Math.max(max, newest(path.join(file, entry))), stat.mtimeMs);
}

/**
 * Builds the console into dist/web when it is missing or older than src/web, so tests exercise the sources
 * as they are (esbuild takes well under a second). Call before building the app: it reads dist/web at start.
 */
export async function ensureWebBuilt(): Promise<void> {
  const index = fs.statSync(path.join(WEB_OUT, 'index.html'), { throwIfNoEntry: false });
  if (index && INPUTS.every((input) => newest(input) <= index.mtimeMs)) return;
  await buildWeb();
}
