import fs from 'node:fs';
import path from 'node:path';
import { create } from 'tar';
import { archivePath, neverPackedByContent, neverPackedByName, runningClient, type ClientIdentity, type NeverPackedReason } from './never-packed.js';
import { ignoreVerdict, parseTerraformIgnore, type IgnoreRule } from './terraform-ignore.js';

export interface PackOptions {
  /** The pipeline client to leave out (default: the running script). */
  client?: ClientIdentity;
}

export interface PackedConfiguration {
  archive: Buffer;
  /** What went in, in archive order (directories end in `/`). */
  entries: string[];
  /** What Teamstage left out although `.terraformignore` let it in (never-packed.ts), to tell the job. */
  neverPacked: Array<{ path: string; reason: NeverPackedReason }>;
}

/**
 * The files a configuration version of `directory` holds: walked as go-slug's packer walks (lexical order,
 * `.terraformignore` and its defaults: terraform-ignore.ts), less what Teamstage never packs (never-packed.ts).
 */
export function configurationEntries(directory: string, options: PackOptions = {}): Omit<PackedConfiguration, 'archive'> {
  const stat = fs.statSync(directory, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) throw new Error(`${directory} is not a directory`);
  const root = path.resolve(directory);
  const ignoreFile = path.join(root, '.terraformignore');
  const rules = parseTerraformIgnore(fs.existsSync(ignoreFile) ? fs.readFileSync(ignoreFile, 'utf8') : undefined);
  const client = options.client ?? runningClient();
  const result: Omit<PackedConfiguration, 'archive'> = { entries: [], neverPacked: [] };
  walk(root, root, rules, client, result);
  return result;
}

function walk(root: string, dir: string, rules: IgnoreRule[], client: ClientIdentity | undefined, result: Omit<PackedConfiguration, 'archive'>): void {
  for (const name of fs.readdirSync(dir).sort()) {
    const absolute = path.join(dir, name);
    const relative = archivePath(root, absolute);
    const stat = fs.lstatSync(absolute);
    // As go-slug's packWalkFn: a path an ignore rule excludes is left out, but a directory is still walked
    // into unless it is excluded as `dir/` by a rule no negation follows.
    if (ignoreVerdict(rules, relative).excluded) {
      if (stat.isDirectory()) walk(root, absolute, rules, client, result);
      continue;
    }
    if (stat.isDirectory()) {
      const reason = neverPackedByName(relative, true);
      if (reason) {
        result.neverPacked.push({ path: `${relative}/`, reason });
        continue;
      }
      const verdict = ignoreVerdict(rules, `${relative}/`);
      if (!verdict.excluded) result.entries.push(`${relative}/`);
      if (!verdict.dominating) walk(root, absolute, rules, client, result);
      continue;
    }
    const reason = neverPackedByName(relative, false) ?? (stat.isFile() ? neverPackedByContent(absolute, stat.size, client) : undefined);
    if (reason) result.neverPacked.push({ path: relative, reason });
    else if (stat.isFile() || stat.isSymbolicLink()) result.entries.push(relative);
  }
}

/** The directory as a tar.gz, as the configuration version's upload URL takes it. */
export async function packConfiguration(directory: string, options: PackOptions = {}): Promise<PackedConfiguration> {
  const { entries, neverPacked } = configurationEntries(directory, options);
  if (!entries.some((entry) => !entry.endsWith('/'))) throw new Error(`${directory} has no configuration files: nothing to upload`);
  const chunks: Buffer[] = [];
  // The walk decided every entry: tar adds exactly these (directories without their contents), as stored.
  const stream = create({ gzip: true, cwd: path.resolve(directory), portable: true, noDirRecurse: true, follow: false }, entries);
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return { archive: Buffer.concat(chunks), entries, neverPacked };
}
