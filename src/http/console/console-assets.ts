import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built web console (dist/web, written by scripts/build-web.mjs), read into memory once at start: a few
 * tens of kilobytes, each file with its brotli and gzip forms made at build time, so a request costs neither
 * a disk read nor compression.
 */
export interface ConsoleFile {
  type: string;
  etag: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

export interface ConsoleAssets {
  index: ConsoleFile;
  /** Content-hashed files under /app/assets/, by file name. */
  assets: Map<string, ConsoleFile>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/**
 * dist/web of this checkout, found from this module's own place: src/http/console (tsx), dist/src/http/console
 * (tsc) and dist/bundle (the bundle) all sit under the directory holding package.json.
 */
export function defaultConsoleDir(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web');
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Reads a built console, or null when there is none (the sources were never built). */
export function loadConsoleAssets(dir: string | null): ConsoleAssets | null {
  if (!dir || !fs.existsSync(path.join(dir, 'index.html'))) return null;
  const assets = new Map<string, ConsoleFile>();
  const assetDir = path.join(dir, 'assets');
  if (fs.existsSync(assetDir)) {
    for (const name of fs.readdirSync(assetDir)) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue;
      assets.set(name, readFile(path.join(assetDir, name)));
    }
  }
  return { index: readFile(path.join(dir, 'index.html')), assets };
}

function readFile(file: string): ConsoleFile {
  const identity = fs.readFileSync(file);
  const optional = (suffix: string) => (fs.existsSync(file + suffix) ? fs.readFileSync(file + suffix) : undefined);
  return {
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    br: optional('.br'),
    gzip: optional('.gz'),
  };
}

/** The best encoding of `file` the client accepts (brotli, then gzip, then none); `q=0` refuses one. */
export function pickEncoding(file: ConsoleFile, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...parameters] = part.trim().toLowerCase().split(';');
    const refused = parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
    if (name && !refused) accepted.add(name);
  }
  if (file.br && accepted.has('br')) return { body: file.br, encoding: 'br' };
  if (file.gzip && (accepted.has('gzip') || accepted.has('*'))) return { body: file.gzip, encoding: 'gzip' };
  return { body: file.identity };
}
