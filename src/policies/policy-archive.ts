import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

/** The bounds of one policy set archive (policy-set-versions.service.ts derives them from the policy limits). */
export interface PolicyArchiveLimits {
  /** Entries (files and directories) the archive may hold. */
  maxEntries: number;
  /** The largest policy or HCL file kept (TEAMSTAGE_POLICY_MAX_BYTES). */
  maxFileBytes: number;
  /** Inflated bytes read in all: a small gzip cannot make the server read gigabytes. */
  maxInflatedBytes: number;
}

/** Why an archive is not taken; the version turns `errored` with it. */
export class PolicyArchiveProblem extends Error {}

const KEPT = /\.(rego|sentinel|hcl)$/;

/**
 * The policy files (`.rego`, `.sentinel`, `.hcl`) of a tar.gz, by normalized path, read as a stream: nothing is
 * written to disk and no name from the archive is ever used as a path. Other files are skipped (their bytes still
 * count toward the inflated bound); links, devices, absolute paths and `..` are refused.
 */
export async function readPolicyArchive(content: AsyncIterable<Buffer>, limits: PolicyArchiveLimits): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let entries = 0;
  let inflated = 0;
  let problem: PolicyArchiveProblem | undefined;
  const fail = (message: string) => {
    problem ??= new PolicyArchiveProblem(message);
  };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      entries++;
      inflated += entry.size;
      const path = normalizedPath(entry.path);
      if (entries > limits.maxEntries) fail(`the archive holds more than ${limits.maxEntries} entries`);
      else if (inflated > limits.maxInflatedBytes) fail(`the archive inflates to more than ${limits.maxInflatedBytes} bytes`);
      else if (path === undefined) fail(`the archive entry ${JSON.stringify(entry.path)} leaves the archive's root`);
      else if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'Directory') fail(`the archive entry ${path} is a ${entry.type}; only files and directories are read`);
      else if (entry.type !== 'Directory' && KEPT.test(path)) {
        if (entry.size > limits.maxFileBytes) fail(`${path} is larger than the limit of ${limits.maxFileBytes} bytes (TEAMSTAGE_POLICY_MAX_BYTES)`);
        else return keep(entry, path);
      }
      entry.resume();
    },
  });
  const keep = (entry: ReadEntry, path: string) => {
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => {
      try {
        files.set(path, decoder.decode(Buffer.concat(chunks)));
      } catch {
        fail(`${path} is not UTF-8 text`);
      }
    });
  };
  const done = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.on('abort', reject);
  });
  done.catch(() => undefined);
  // Inflated by Node's zlib off the event loop, counted as it comes: the tar parser sees only plain, bounded bytes.
  const gunzip = createGunzip();
  const input = Readable.from(gzipOnly(content));
  input.once('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  let plain = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      plain += chunk.length;
      // The tar's own blocks and headers count too (a few KiB over the entries' sizes).
      if (plain > limits.maxInflatedBytes + 64 * 1024) fail(`the archive inflates to more than ${limits.maxInflatedBytes} bytes`);
      if (problem) break;
      if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
    }
    if (problem) throw problem;
    parser.end();
    await done;
  } catch (error) {
    if (error instanceof PolicyArchiveProblem) throw error;
    throw new PolicyArchiveProblem(`the upload is not a valid tar.gz: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  if (problem) throw problem;
  return files;
}

/** `./a/b.rego` → `a/b.rego`; undefined for an absolute path, a backslash or a `..` segment. */
function normalizedPath(raw: string): string | undefined {
  if (raw.startsWith('/') || raw.includes('\\')) return undefined;
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return undefined;
  return segments.join('/');
}

/** The content, refused at once unless it starts with the gzip magic (and refused when empty). */
async function* gzipOnly(content: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let start = Buffer.alloc(0);
  for await (const chunk of content) {
    if (start.length < 2) {
      start = Buffer.concat([start, chunk.subarray(0, 2 - start.length)]);
      if (start.length === 2 && (start[0] !== 0x1f || start[1] !== 0x8b)) throw new PolicyArchiveProblem('the upload is not gzip-compressed; send a tar.gz of the policies');
    }
    yield chunk;
  }
  if (start.length < 2) throw new PolicyArchiveProblem('the upload is empty or not gzip-compressed; send a tar.gz of the policies');
}
