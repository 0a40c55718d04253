import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { list } from 'tar';
import { configurationEntries, packConfiguration } from '../../src/pipeline/config-archive.js';
import { runningClient } from '../../src/pipeline/never-packed.js';
import { ignoreVerdict, parseTerraformIgnore } from '../../src/pipeline/terraform-ignore.js';

/** A directory with these files (content by relative path); answers its path. */
function tree(files: Record<string, string | Buffer>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-pack-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** A stored (uncompressed) zip archive with these entries, laid out as terraform's planfile writes one. */
function zip(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function archivedNames(archive: Buffer): Promise<string[]> {
  const file = path.join(os.tmpdir(), `teamstage-pack-${process.pid}-${Date.now()}.tgz`);
  fs.writeFileSync(file, archive);
  try {
    const names: string[] = [];
    await list({ file, onReadEntry: (entry) => names.push(entry.path) });
    return names;
  } finally {
    fs.rmSync(file);
  }
}

const noClient = { client: runningClient('/nonexistent') };

describe('pipeline: .terraformignore, read as go-slug reads it', () => {
  // go-slug's own table (internal/ignorefiles/terraformignore_test.go, testdata/archive-dir/.terraformignore).
  const goSlugFile = [
    '# comments are ignored', ' # extra spaces are irrelevant', '# ignore a file', '   baz.txt', '# below is an empty line', '',
    '# ignore a directory', 'terraform.d/', '# negate ignoring a directory at the root', '!/terraform.d/',
    '# ignore a file at a subpath', '**/foo/bar.tf', '# ignore files with specific endings', 'foo/*.md',
    '# character groups', 'bar/something-[a-z].txt', '# ignore a file', 'boop.txt', '# but not one at the current directory', '!/boop.txt',
  ].join('\n');
  const cases: Array<[string, boolean]> = [
    ['.terraform/', true], ['included.txt', false], ['.terraform/foo/bar', true], ['.terraform/foo/bar/more/directories/so/many', true],
    ['.terraform/foo/ignored-subdirectory/', true], ['baz.txt', true], ['parent/foo/baz.txt', true], ['parent/foo/bar.tf', true],
    ['parent/bar/bar.tf', false], ['something/with-baz.txt', false], ['something/baz.x', false], ['foo/ignored-doc.md', true],
    ['bar/something-a.txt', true], ['some-module/terraform.d/x', true], ['terraform.d/', false], ['terraform.d/foo', false],
    ['terraform.d', false], ['baz/boop.txt', true], ['boop.txt', false],
  ];
  for (const [file, excluded] of cases) {
    it(`go-slug's table: ${file} is ${excluded ? 'excluded' : 'kept'}`, () => {
      assert.equal(ignoreVerdict(parseTerraformIgnore(goSlugFile), file).excluded, excluded);
    });
  }

  it("go-slug's with-exclusion case: negations make earlier rules non-dominating; the last two dominate", () => {
    const rules = parseTerraformIgnore('src/**/*\n# except at one directory\n!src/foo/bar.txt\nlogs/\ntmp/\n');
    assert.equal(rules.length, 7);
    assert.deepEqual(rules.map((rule) => rule.negationsAfter), [true, true, true, true, false, false, false]);
    for (const dir of ['logs/', 'tmp/']) assert.equal(ignoreVerdict(rules, dir).dominating, true, dir);
    assert.equal(ignoreVerdict(rules, 'src/baz/ignored').excluded, true);
    assert.equal(ignoreVerdict(rules, 'src/foo/bar.txt').excluded, false);
  });

  it('not gitignore: a middle slash does not anchor, and Unicode forms match each other (NFC)', () => {
    assert.equal(ignoreVerdict(parseTerraformIgnore('foo/*.md'), 'a/foo/x.md').excluded, true);
    assert.equal(ignoreVerdict(parseTerraformIgnore('données.txt'), 'donne\u0301es.txt').excluded, true);
    assert.equal(ignoreVerdict(parseTerraformIgnore('*.txt\n!important_données.txt'), 'important_donne\u0301es.txt').excluded, false);
  });

  it('the defaults alone: .git/ and .terraform/ out, .terraform/modules/ in', () => {
    const dir = tree({ 'main.tf': 'terraform {}\n', '.git/config': 'x', '.terraform/providers/p/bin': 'x', '.terraform/modules/net/main.tf': 'x', 'a.tf': 'x' });
    try {
      assert.deepEqual(configurationEntries(dir, noClient).entries, ['.terraform/modules/net/', '.terraform/modules/net/main.tf', 'a.tf', 'main.tf']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a .terraformignore is honoured, with negation; a directory is excluded as a tree only as `dir/`, as go-slug does', () => {
    const dir = tree({
      '.terraformignore': '*.md\n!KEEP.md\nbuild/\nnode_modules\n', 'main.tf': 'x', 'README.md': 'x', 'KEEP.md': 'x',
      'build/out.txt': 'x', 'node_modules/pkg/index.js': 'x', '.terraform/modules/m/main.tf': 'x',
    });
    try {
      assert.deepEqual(configurationEntries(dir, noClient).entries, [
        '.terraform/modules/m/', '.terraform/modules/m/main.tf', '.terraformignore', 'KEEP.md', 'main.tf', 'node_modules/pkg/', 'node_modules/pkg/index.js',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pipeline: what a configuration version never holds', () => {
  it('state, saved plans (by name, and a zip with a tfplan entry by any name), terraform JSON output, logs, the client and CLI credentials: left out and named', async () => {
    const client = tree({ 'teamstage-pipeline.mjs': '#!/usr/bin/env node\nconsole.log("client")\n' });
    const clientIdentity = runningClient(path.join(client, 'teamstage-pipeline.mjs'));
    const dir = tree({
      'main.tf': 'resource "terraform_data" "x" {}\n',
      'lambda.zip': zip({ 'index.js': 'exports.handler = 1' }),
      'terraform.tfstate': '{}', 'terraform.tfstate.backup': '{}', 'terraform.tfstate.d/dev/terraform.tfstate': '{}',
      'plan.tfplan': 'x', 'tfplan': zip({ 'tfplan': 'plan', 'tfstate': 'state', 'tfconfig/m-/main.tf': 'x' }),
      'out/saved': zip({ 'tfconfig/m-/main.tf': 'x', 'tfplan': 'plan' }),
      'plan.json': '{"format_version":"1.2","terraform_version":"1.11.4","planned_values":{}}',
      'pulled.json': '{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": 3,\n  "lineage": "x"\n}',
      'data.json': '{"format_version":"mine"}', 'config.tf.json': '{"resource":{}}',
      'plan.log': 'Plan: 1 to add', 'crash.log': 'x',
      'tools/gate.mjs': fs.readFileSync(path.join(client, 'teamstage-pipeline.mjs')),
      'teamstage-pipeline.mjs': 'an older client',
      '.terraformrc': 'credentials "app.example" { token = "x" }', 'home/terraform.rc': 'x', '.terraform.d/credentials.tfrc.json': '{}',
    });
    try {
      const packed = await packConfiguration(dir, { client: clientIdentity });
      assert.deepEqual(await archivedNames(packed.archive), ['.terraform.d/', 'config.tf.json', 'data.json', 'home/', 'lambda.zip', 'main.tf', 'out/', 'tools/']);
      assert.deepEqual(Object.fromEntries(packed.neverPacked.map((left) => [left.path, left.reason])), {
        '.terraform.d/credentials.tfrc.json': 'CLI credentials', '.terraformrc': 'CLI credentials', 'home/terraform.rc': 'CLI credentials',
        'crash.log': 'log', 'out/saved': 'saved plan', 'plan.json': "terraform's JSON output", 'plan.log': 'log', 'plan.tfplan': 'saved plan',
        'pulled.json': 'state', 'teamstage-pipeline.mjs': 'the pipeline client', 'terraform.tfstate': 'state', 'terraform.tfstate.backup': 'state',
        'terraform.tfstate.d/': 'state', 'tfplan': 'saved plan', 'tools/gate.mjs': 'the pipeline client',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(client, { recursive: true, force: true });
    }
  });

  it('refuses a missing directory, or one with no configuration file', async () => {
    await assert.rejects(packConfiguration('/nonexistent/teamstage'), /not a directory/);
    const empty = tree({ 'terraform.tfstate': '{}', 'sub/plan.log': 'x' });
    try {
      await assert.rejects(packConfiguration(empty, noClient), /no configuration files/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  // A real terraform (or OpenTofu, docs/real-clients.md, "Real clients") plans and applies in the directory, as the README's
  // pipeline did before it wrote its files elsewhere: what is packed after that is the configuration alone.
  const realTf = [
    path.join(process.env.TEAMSTAGE_REALCLIENTS_DIR ?? path.join(os.homedir(), '.cache/teamstage-realclients'), 'bin/tofu'),
    ...(process.env.PATH ?? '').split(':').map((dir) => path.join(dir, 'terraform')),
  ].find((candidate) => fs.existsSync(candidate));
  it('a directory after a full plan + apply in it (saved plans, plan JSON, logs, state, the client) packs to configuration only', { skip: !realTf && 'no tofu or terraform built' }, async () => {
    const dir = tree({ 'main.tf': 'resource "terraform_data" "x" {\n  input = "secret-ish"\n}\noutput "x" {\n  value = terraform_data.x.output\n}\n' });
    const client = tree({ 'teamstage-pipeline.mjs': '// client\n' });
    try {
      const env = { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null', CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
      const tf = (...args: string[]) => {
        const ran = spawnSync(realTf!, args, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
        assert.equal(ran.status, 0, `${args.join(' ')}: ${ran.stderr}`);
        return ran.stdout;
      };
      tf('init', '-input=false', '-no-color');
      fs.writeFileSync(path.join(dir, 'plan.log'), tf('plan', '-input=false', '-no-color', '-out=plan.tfplan'));
      tf('plan', '-input=false', '-no-color', '-out=tfplan');
      fs.writeFileSync(path.join(dir, 'plan.json'), tf('show', '-json', 'plan.tfplan'));
      fs.writeFileSync(path.join(dir, 'apply.log'), tf('apply', '-input=false', '-no-color', 'plan.tfplan'));
      fs.copyFileSync(path.join(client, 'teamstage-pipeline.mjs'), path.join(dir, 'teamstage-pipeline.mjs'));
      assert.ok(fs.existsSync(path.join(dir, 'terraform.tfstate')), 'the apply wrote its state here');
      const packed = await packConfiguration(dir, { client: runningClient(path.join(client, 'teamstage-pipeline.mjs')) });
      const names = await archivedNames(packed.archive);
      assert.deepEqual(names.filter((name) => name !== '.terraform.lock.hcl'), ['main.tf'], names.join(', '));
      assert.deepEqual(packed.neverPacked.map((left) => left.path).sort(), ['apply.log', 'plan.json', 'plan.log', 'plan.tfplan', 'teamstage-pipeline.mjs', 'terraform.tfstate', 'tfplan']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(client, { recursive: true, force: true });
    }
  });
});
