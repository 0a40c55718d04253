/** The policy set archive reader's bounds (policy-archive.ts): entries, per-file size, inflated bytes, paths. */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { Header } from 'tar';
import { PolicyArchiveProblem, readPolicyArchive } from '../../src/policies/policy-archive.js';

function tarGz(entries: Array<{ path: string; text?: string; type?: 'File' | 'Directory' }>): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.text ?? '');
    const block = Buffer.alloc(512);
    new Header({ path: entry.path, mode: 0o644, size: data.length, mtime: new Date(0), type: entry.type ?? 'File' }).encode(block, 0);
    blocks.push(block);
    if (data.length > 0) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

async function* once(buffer: Buffer): AsyncGenerator<Buffer> {
  yield buffer;
}

const LIMITS = { maxEntries: 5, maxFileBytes: 100, maxInflatedBytes: 10_000 };

async function problemOf(archive: Buffer, limits = LIMITS): Promise<string> {
  try {
    await readPolicyArchive(once(archive), limits);
  } catch (error) {
    assert.ok(error instanceof PolicyArchiveProblem, String(error));
    return error.message;
  }
  assert.fail('the archive was taken');
}

describe('policy set archive reader', () => {
  it('keeps .rego, .sentinel and .hcl files by normalized path and skips the rest', async () => {
    const files = await readPolicyArchive(once(tarGz([{ path: './a/', type: 'Directory' }, { path: './a/b.rego', text: 'package b' }, { path: 'c.hcl', text: 'x' }, { path: 'd.txt', text: 'no' }])), LIMITS);
    assert.deepEqual([...files.entries()], [['a/b.rego', 'package b'], ['c.hcl', 'x']]);
  });

  it('refuses more entries than the bound', async () => {
    const entries = Array.from({ length: 6 }, (_, i) => ({ path: `d${i}/`, type: 'Directory' as const }));
    assert.match(await problemOf(tarGz(entries)), /more than 5 entries/);
    await readPolicyArchive(once(tarGz(entries.slice(0, 5))), LIMITS);
  });

  it('refuses a kept file over the size limit, and an archive that inflates past the bound', async () => {
    assert.match(await problemOf(tarGz([{ path: 'a.rego', text: 'x'.repeat(101) }])), /a\.rego is larger than the limit of 100 bytes/);
    assert.match(await problemOf(tarGz([{ path: 'skip.bin', text: 'x'.repeat(20_000) }])), /inflates to more than 10000 bytes/);
    // A gzip of zeros that is no tar at all, inflating far past the bound: stopped at it.
    assert.match(await problemOf(gzipSync(Buffer.alloc(5_000_000))), /inflates to more than 10000 bytes|not a valid tar/);
  });

  it('refuses paths that leave the root, absolute or with backslashes', async () => {
    for (const path of ['../x.rego', 'a/../../x.rego', '/etc/x.rego', 'a\\..\\x.rego']) {
      assert.match(await problemOf(tarGz([{ path, text: 'x' }])), /leaves the archive's root/, path);
    }
  });

  it('refuses what is not a tar.gz', async () => {
    assert.match(await problemOf(Buffer.from('plain text')), /not gzip-compressed/);
    assert.match(await problemOf(gzipSync(Buffer.from('x'.repeat(600)))), /not a valid tar/);
  });
});
