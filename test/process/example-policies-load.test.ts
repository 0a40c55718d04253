/**
 * examples/policies/load.sh as its README tells an owner to run it, from the repository's root (it once read
 * the Rego relative to the caller's directory, uploaded empty bodies and made no policy set): against a live
 * server with the real OPA, it makes the three policies with their Rego and one policy set over the named
 * workspace; a second run stops at the first refusal with the server's answer.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { opaPath } from '../helpers/opa.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = path.join(ROOT, 'examples/policies/load.sh');
const POLICY_FILES = ['no_public_ingress', 'required_tags', 'no_destroy_protected'];

function load(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: stdout.trim(), stderr }),
    );
  });
}

describe('examples/policies/load.sh against a live server', { timeout: 300_000 }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-policy-load-'));
  let server: ServerProcess;
  let http: HttpClient;
  let ownerToken: string;
  let organization: string;

  before(async () => {
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess(
      {
        DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`,
        TEAMSTAGE_DATA_DIR: dataDir,
        TEAMSTAGE_SITE_TOKEN: siteToken,
        TEAMSTAGE_RATE_LIMIT: '0',
        TEAMSTAGE_OPA_PATH: opaPath(),
      },
      { readyTimeoutMs: 120_000 },
    );
    http = new HttpClient(server.url, 2);
    ({ ownerToken, organization } = await bootstrapOrganization(http, siteToken, `pol${randomBytes(3).toString('hex')}`));
    const workspace = await http.request('POST', `/organizations/${organization}/workspaces`, ownerToken, {
      data: { type: 'workspaces', attributes: { name: 'network' } },
    });
    assert.equal(workspace.status, 201, workspace.text);
  });

  after(async () => {
    await server?.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes the three policies with their Rego and a policy set over the named workspace; a rerun stops at the refusal', async () => {
    const env = { TEAMSTAGE_ADDRESS: server.url, TEAMSTAGE_TOKEN: ownerToken, ORG: organization, WORKSPACES: 'network' };
    const loaded = await load(env);
    assert.equal(loaded.code, 0, loaded.stderr);
    const set = await http.request('GET', `/policy-sets/${loaded.stdout}`, ownerToken);
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.data.attributes.global, false);
    assert.deepEqual(set.body.data.relationships.workspaces.data.map((w: { id: string }) => w.id).length, 1);
    const policies = set.body.data.relationships.policies.data as Array<{ id: string }>;
    assert.equal(policies.length, 3);
    const names: string[] = [];
    for (const policy of policies) {
      const shown = await http.request('GET', `/policies/${policy.id}`, ownerToken);
      const name = shown.body.data.attributes.name as string;
      names.push(name);
      const file = name.replace(/-/g, '_');
      const rego = await fetch(`${server.url}/api/v2/policies/${policy.id}/download`, { headers: { authorization: `Bearer ${ownerToken}` } });
      assert.equal(rego.status, 200);
      assert.equal(await rego.text(), fs.readFileSync(path.join(ROOT, 'examples/policies', `${file}.rego`), 'utf8'), `${file}'s Rego was uploaded whole`);
    }
    assert.deepEqual(names.sort(), POLICY_FILES.map((file) => file.replace(/_/g, '-')).sort());

    const again = await load(env);
    assert.equal(again.code, 1, 'a second load is refused: the names are taken');
    assert.match(again.stderr + again.stdout, /already been taken/);
  });
});
