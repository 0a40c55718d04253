import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function git(...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

/**
 * The release before this one's schema: TEAMSTAGE_PREVIOUS_RELEASE (a commit or tag) when set, else the
 * parent of the newest commit on the first-parent line that added a migration: the last build that ran
 * on the schema before the newest migration, i.e. what a cluster still runs when the first new node migrates.
 */
export function previousReleaseCommit(): string {
  const chosen = process.env.TEAMSTAGE_PREVIOUS_RELEASE;
  if (chosen) return git('rev-parse', '--verify', `${chosen}^{commit}`);
  // A commit that added a migration (a comment edited in an old one adds nothing to the schema).
  const changed = git('log', '-1', '--first-parent', '--diff-filter=A', '--format=%H', '--', 'src/db/migrations');
  if (!changed) throw new Error('no commit changed src/db/migrations: is this a shallow clone? (git fetch --unshallow)');
  return git('rev-parse', '--verify', `${changed}^1`);
}

export interface ReleaseCheckout {
  commit: string;
  dir: string;
  /** How its dependencies were provided: this checkout's node_modules (same lock file) or a fresh `npm ci`. */
  dependencies: 'shared' | 'installed';
  remove(): void;
}

/**
 * The sources of `commit` in a temporary directory (`git archive`: nothing in this repository changes),
 * run with tsx like the other system tests. Dependencies: when every package its package-lock.json pins is
 * pinned at the same version by this checkout's (the same lock, or one that only added packages),
 * a symlink to this checkout's node_modules (seconds); otherwise `npm ci --ignore-scripts` (no native build:
 * the previous release runs on PostgreSQL only, and better-sqlite3 loads its addon only when opened).
 */
export function checkOutRelease(commit: string): ReleaseCheckout {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-previous-'));
  const archive = spawnSync('git', ['-C', root, 'archive', '--format=tar', commit], { maxBuffer: 1024 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`extracting ${commit} failed: ${untar.stderr}`);
  const sameLock = lockContained(path.join(dir, 'package-lock.json'), path.join(root, 'package-lock.json'));
  let dependencies: ReleaseCheckout['dependencies'] = 'shared';
  if (sameLock) fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  else {
    const install = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    if (install.status !== 0) throw new Error(`npm ci for ${commit} failed or took over 5 minutes: ${install.stderr}`);
    dependencies = 'installed';
  }
  return { commit, dir, dependencies, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Whether every package `older` pins (path in node_modules and version) is pinned the same by `newer`. */
function lockContained(older: string, newer: string): boolean {
  const packages = (file: string) => (JSON.parse(fs.readFileSync(file, 'utf8')) as { packages?: Record<string, { version?: string }> }).packages ?? {};
  const wanted = packages(older);
  const present = packages(newer);
  return Object.entries(wanted).every(([key, entry]) => key === '' || present[key]?.version === entry.version);
}
