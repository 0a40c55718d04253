import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Whether `command` runs here (asked for its version: `--version` unless it wants another argument). */
export function installed(command: string, versionArgs = ['--version']): boolean {
  try {
    execFileSync(command, versionArgs, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** As scripts/podman-flags.sh: runc and cgroupfs, which hosts with hybrid cgroups need (crun refuses them). */
export const podmanFlags = process.env.TEAMSTAGE_PODMAN_FLAGS?.split(' ').filter(Boolean) ?? (installed('runc') ? ['--runtime', 'runc', '--cgroup-manager=cgroupfs'] : []);

/** Runs a command in the project's root to its end (killed after `timeoutMs`); its stdout, or an error with both outputs. */
export function runCommand(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: root, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
