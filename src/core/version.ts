import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// package.json sits two levels above src/core/ (tsx) and three above dist/src/core/ (compiled); try both.
function readVersion(): string {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'teamstage' && pkg.version) return pkg.version;
    } catch {
      /* try the next location */
    }
  }
  return '0.0.0';
}

/**
 * Set by scripts/bundle.mjs (esbuild `define`) in the standalone pipeline client, which is downloaded alone
 * and has no package.json beside it; undefined everywhere else.
 */
declare const TEAMSTAGE_BUILD_VERSION: string | undefined;

export const VERSION = typeof TEAMSTAGE_BUILD_VERSION === 'string' ? TEAMSTAGE_BUILD_VERSION : readVersion();
