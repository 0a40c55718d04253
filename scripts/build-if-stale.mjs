/**
 * `npm start` runs the compiled server, which `npm ci` builds once (the `prepare` script). Compiling the
 * whole project on every start took about 17 s, so start only rebuilds when a source is newer than the
 * build: an installed checkout starts at once, and an edited one still never runs stale code.
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the build reads: a change to any of these makes the build stale. */
export const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/bundle.mjs', 'scripts/bundle-options.mjs', 'scripts/build-web.mjs', 'scripts/build-info.mjs'];
/** The last file the build writes (scripts/bundle.mjs), so its time is the build's. */
export const BUILD_OUTPUT = path.join('dist', 'bundle', 'teamstage-pipeline.mjs');

function newestModification(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its directory's time
  for (const entry of fs.readdirSync(file)) newest = Math.max(newest, newestModification(path.join(file, entry)));
  return newest;
}

/** Whether the build under `root` is missing or older than one of its inputs. */
export function buildIsStale(root) {
  const built = fs.statSync(path.join(root, BUILD_OUTPUT), { throwIfNoEntry: false });
  if (!built) return true;
  return BUILD_INPUTS.some((input) => newestModification(path.join(root, input)) > built.mtimeMs);
}

/** Builds first when the build is stale (see above); the build's own errors are printed by tsc. */
export function buildIfStale(root) {
  if (!buildIsStale(root)) return;
  console.error('teamstage: sources changed since the last build; building first (npm run build)');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
