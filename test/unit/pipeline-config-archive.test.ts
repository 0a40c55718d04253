import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { list } from 'tar';
import { isExcluded, packConfiguration } from '../../src/pipeline/config-archive.js';

describe('pipeline: the configuration upload', () => {
  it('leaves out .terraform/, .git/ and state files at any depth', () => {
    for (const excluded of ['.terraform', './.terraform/providers/x', 'modules/a/.terraform/x', '.git/config', 'terraform.tfstate', 'terraform.tfstate.backup', 'env/prod.tfstate']) {
      assert.equal(isExcluded(excluded), true, excluded);
    }
    for (const kept of ['main.tf', './modules/a/main.tf', '.terraform.lock.hcl', 'terraform.tfvars', 'state.tf']) assert.equal(isExcluded(kept), false, kept);
  });

  it('packs the directory as a tar.gz with relative paths', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-pack-'));
    try {
      fs.writeFileSync(path.join(dir, 'main.tf'), 'terraform {}\n');
      fs.writeFileSync(path.join(dir, '.terraform.lock.hcl'), '# lock\n');
      fs.mkdirSync(path.join(dir, 'modules/net/.terraform'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'modules/net/main.tf'), 'variable "x" {}\n');
      fs.writeFileSync(path.join(dir, 'modules/net/.terraform/junk'), 'x');
      fs.mkdirSync(path.join(dir, '.terraform'));
      fs.writeFileSync(path.join(dir, '.terraform/junk'), 'x');
      fs.writeFileSync(path.join(dir, 'terraform.tfstate'), '{}');
      const archive = await packConfiguration(dir);
      assert.deepEqual([...archive.subarray(0, 2)], [0x1f, 0x8b], 'gzip');
      const archived = path.join(dir, '..', `${path.basename(dir)}.tgz`);
      fs.writeFileSync(archived, archive);
      const names: string[] = [];
      await list({ file: archived, onReadEntry: (entry) => names.push(entry.path) });
      fs.rmSync(archived);
      assert.deepEqual(names.sort(), ['.terraform.lock.hcl', 'main.tf', 'modules/', 'modules/net/', 'modules/net/main.tf']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a missing or empty directory', async () => {
    await assert.rejects(packConfiguration('/nonexistent/teamstage'), /not a directory/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-pack-'));
    try {
      await assert.rejects(packConfiguration(empty), /empty/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
