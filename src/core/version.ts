import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root sits two levels above src/core/ (tsx), three above dist/src/core/ (compiled) and two
 * above dist/bundle/ (bundled); the one whose package.json is Teamstage's is it.
 */
function packageRoot(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const root = path.resolve(here, up);
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'teamstage') return root;
    } catch {
      /* try the next location */
    }
  }
  return undefined;
}

/**
 * Set by scripts/bundle.mjs (esbuild `define`) in the standalone pipeline client, which is downloaded alone
 * and has no package.json beside it; undefined everywhere else.
 */
declare const TEAMSTAGE_BUILD_VERSION: string | undefined;

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const root = packageRoot();
const pkg = root ? readJson(path.join(root, 'package.json')) : undefined;

/** The package version (package.json). */
export const VERSION =
  typeof TEAMSTAGE_BUILD_VERSION === 'string' ? TEAMSTAGE_BUILD_VERSION : typeof pkg?.version === 'string' ? pkg.version : '0.0.0';

/**
 * The commit the build was made from, written by the build (scripts/build-info.mjs) to dist/build-info.json;
 * `unknown` for a tree that was never built. Two builds of one package version are told apart by it.
 */
const info = root ? readJson(path.join(root, 'dist', 'build-info.json')) : undefined;
export const COMMIT = typeof info?.commit === 'string' && /^[0-9a-z.-]{1,40}$/.test(info.commit) ? info.commit : 'unknown';

/** What `teamstage --version`, the ping's X-Teamstage-Version, /metrics and the run task User-Agent report. */
export const BUILD_VERSION = `${VERSION}+${COMMIT}`;
