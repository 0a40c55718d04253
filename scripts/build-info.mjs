/**
 * Writes dist/build-info.json: the commit this build was made from, so that two builds of one package
 * version can be told apart (`teamstage --version`, the ping, /metrics; src/core/version.ts reads it).
 * TEAMSTAGE_BUILD_COMMIT wins (a build from a tarball has no .git); else `git rev-parse`, with `-dirty` when
 * the tree has uncommitted changes; else `unknown`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function git(...args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

function commit() {
  if (process.env.TEAMSTAGE_BUILD_COMMIT) return process.env.TEAMSTAGE_BUILD_COMMIT;
  try {
    const head = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}-dirty`;
  } catch {
    return 'unknown';
  }
}

fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist', 'build-info.json'), `${JSON.stringify({ commit: commit() })}\n`);
