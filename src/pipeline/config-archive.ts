import fs from 'node:fs';
import path from 'node:path';
import { create } from 'tar';

/**
 * Skipped when packing a configuration: `.terraform/` holds providers and modules `terraform init`
 * downloaded (large, and machine-specific), state files may hold secrets and are not configuration,
 * and `.git/` is history, not configuration (HashiCorp's own slug packer leaves both directories out too).
 */
export function isExcluded(relativePath: string): boolean {
  const parts = relativePath.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '.terraform' || part === '.git')) return true;
  return /\.tfstate/.test(parts[parts.length - 1] ?? '');
}

/** The directory as a tar.gz, as the configuration version's upload URL takes it. */
export async function packConfiguration(directory: string): Promise<Buffer> {
  const stat = fs.statSync(directory, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) throw new Error(`${directory} is not a directory`);
  // Top-level names instead of '.', so archive paths read `main.tf`, not `./main.tf`.
  const entries = fs.readdirSync(directory).filter((name) => !isExcluded(name)).sort();
  if (entries.length === 0) throw new Error(`${directory} is empty: nothing to upload`);
  const chunks: Buffer[] = [];
  const stream = create({ gzip: true, cwd: directory, portable: true, filter: (entryPath) => !isExcluded(entryPath) }, entries);
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
