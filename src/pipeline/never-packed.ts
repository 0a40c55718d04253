import fs from 'node:fs';
import path from 'node:path';

/**
 * Files the pipeline client never packs into a configuration version, whatever `.terraformignore` says:
 * every run task of the workspace downloads the configuration, and these hold the state (with its secrets)
 * or are not configuration. terraform's own slug packer would upload them; a pipeline that plans and applies
 * in the directory it packs leaves them there for the next run (issue 34 item 4).
 *
 * - state: `*.tfstate`, `*.tfstate.*` (backups), `terraform.tfstate.d/` (the local backend's workspaces), and
 *   any JSON file that reads as a state (`"lineage"` and `"serial"` near its start, e.g. `state pull` output);
 * - saved plans: `*.tfplan`, and any file terraform would open as a plan: a zip archive with a `tfplan` entry
 *   (internal/plans/planfile), whatever its name (`-out=plan`, `-out=tfplan`);
 * - what a job writes for Teamstage: terraform's JSON output (`show -json` of a plan or a state: its first
 *   keys are `format_version` and `terraform_version`) and logs (`*.log`, also terraform's `crash.log` and a
 *   `TF_LOG_PATH` file, which can hold secrets);
 * - the client itself: the running script, `teamstage-pipeline.mjs` as the server serves it, and any copy of it;
 * - CLI credentials: `.terraformrc`, `terraform.rc` and `credentials.tfrc.json` hold API tokens (a pipeline
 *   that points `TF_CLI_CONFIG_FILE` or `HOME` at its working directory leaves them there).
 */

export type NeverPackedReason = 'state' | 'saved plan' | "terraform's JSON output" | 'log' | 'the pipeline client' | 'CLI credentials';

/** terraform's and tofu's CLI configuration files, which hold `credentials` blocks (tokens). */
const CLI_CREDENTIAL_FILES = new Set(['.terraformrc', 'terraform.rc', 'credentials.tfrc.json']);

/** What reading a file's start tells: enough to see a zip archive or a terraform JSON document. */
const SNIFF_BYTES = 1024;
const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_END_OF_DIRECTORY = 0x06054b50;
const ZIP_DIRECTORY_ENTRY = 0x02014b50;
/** The end-of-central-directory record sits in the last 22 bytes plus a comment of up to 64 KiB. */
const ZIP_TAIL_BYTES = 22 + 65_535;

/** By its path alone (relative, slash-separated): a directory never entered, or a file never packed. */
export function neverPackedByName(relativePath: string, isDirectory: boolean): NeverPackedReason | undefined {
  const name = relativePath.split('/').pop() ?? '';
  if (isDirectory) return name === 'terraform.tfstate.d' ? 'state' : undefined;
  if (/\.tfstate(\..*)?$/.test(name)) return 'state';
  if (name.endsWith('.tfplan')) return 'saved plan';
  if (name.endsWith('.log')) return 'log';
  if (name === 'teamstage-pipeline.mjs') return 'the pipeline client';
  if (CLI_CREDENTIAL_FILES.has(name)) return 'CLI credentials';
  return undefined;
}

/** The running pipeline client, to leave out any copy of it (a file of its size is compared byte for byte). */
export interface ClientIdentity {
  realPath: string;
  size: number;
  bytes: () => Buffer;
}

export function runningClient(scriptPath: string | undefined = process.argv[1]): ClientIdentity | undefined {
  if (!scriptPath) return undefined;
  try {
    const realPath = fs.realpathSync(scriptPath);
    const size = fs.statSync(realPath).size;
    let cached: Buffer | undefined;
    return { realPath, size, bytes: () => (cached ??= fs.readFileSync(realPath)) };
  } catch {
    return undefined;
  }
}

/** By its content: a regular file at `absolutePath` of `size` bytes. */
export function neverPackedByContent(absolutePath: string, size: number, client: ClientIdentity | undefined): NeverPackedReason | undefined {
  if (client && size === client.size && (fs.realpathSync(absolutePath) === client.realPath || fs.readFileSync(absolutePath).equals(client.bytes()))) {
    return 'the pipeline client';
  }
  if (size < 4) return undefined;
  const fd = fs.openSync(absolutePath, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, SNIFF_BYTES));
    fs.readSync(fd, head, 0, head.length, 0);
    if (head.readUInt32LE(0) === ZIP_LOCAL_HEADER) return zipHoldsPlan(fd, size) ? 'saved plan' : undefined;
    return terraformJsonKind(head.toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

function terraformJsonKind(start: string): NeverPackedReason | undefined {
  if (!/^\s*\{/.test(start)) return undefined;
  const key = (name: string) => new RegExp(`"${name}"\\s*:`).test(start);
  if (key('lineage') && key('serial')) return 'state';
  if (key('format_version') && key('terraform_version')) return "terraform's JSON output";
  return undefined;
}

/** Whether the zip's central directory names a `tfplan` entry, as terraform looks for one. */
function zipHoldsPlan(fd: number, size: number): boolean {
  const tailLength = Math.min(size, ZIP_TAIL_BYTES);
  const tail = Buffer.alloc(tailLength);
  fs.readSync(fd, tail, 0, tailLength, size - tailLength);
  let end = -1;
  for (let at = tailLength - 22; at >= 0; at--) {
    if (tail.readUInt32LE(at) === ZIP_END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) return false;
  const entries = tail.readUInt16LE(end + 10);
  const directorySize = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (directoryOffset + directorySize > size) return false;
  const directory = Buffer.alloc(directorySize);
  fs.readSync(fd, directory, 0, directorySize, directoryOffset);
  let at = 0;
  for (let entry = 0; entry < entries && at + 46 <= directory.length; entry++) {
    if (directory.readUInt32LE(at) !== ZIP_DIRECTORY_ENTRY) return false;
    const nameLength = directory.readUInt16LE(at + 28);
    const name = directory.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (name === 'tfplan') return true;
    at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
  }
  return false;
}

/** The path as an archive names it: relative to the packed directory, with slashes. */
export function archivePath(root: string, absolutePath: string): string {
  return path.relative(root, absolutePath).split(path.sep).join('/');
}
