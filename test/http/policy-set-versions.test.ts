/**
 * Policy set versions (issue 37): HCP's `POST /policy-sets/:id/versions` (pending, with `links.upload`),
 * `GET /policy-set-versions/:id`, and the tar.gz PUT to the upload link. An OPA set's archive is `policies.hcl`
 * with a `name.rego` per policy, a Sentinel set's `sentinel.hcl` with its sources: valid, its policies become the
 * set's (`ready`); invalid, the set is unchanged and the version `errored` with why (the PUT answers 422 with it).
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Header } from 'tar';
import type { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** The policy size limit of this app: the archive bound is 32 of it (128 KiB). */
const POLICY_MAX_BYTES = 4096;

/** A tar.gz of these entries, written header by header (so tests can hold what `tar` would refuse to pack). */
function tarGz(entries: Array<{ path: string; text?: string; type?: 'File' | 'SymbolicLink'; linkpath?: string }>): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.text ?? '');
    const header = new Header({ path: entry.path, mode: 0o644, size: entry.type === 'SymbolicLink' ? 0 : data.length, mtime: new Date(0), type: entry.type ?? 'File', linkpath: entry.linkpath });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (entry.type !== 'SymbolicLink' && data.length > 0) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const DENY_NOTHING = 'package terraform.deny_nothing\n\ndeny contains msg if { false; msg := "never" }\n';
const ALLOW_ALL = 'package terraform.allow_all\n\nallow := true\n';
const POLICIES_HCL = `# two policies
policy "deny-nothing" {
  query = "data.terraform.deny_nothing.deny"
  enforcement_level = "mandatory"
}

policy "allow-all" {
  query             = "data.terraform.allow_all.allow"
}
`;

for (const dialect of testDialects()) {
  describe(`Policy set versions (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath(), TEAMSTAGE_POLICY_MAX_BYTES: String(POLICY_MAX_BYTES) });
    });
    after(async () => ctx.close());

    async function put(uploadUrl: string, body: Buffer, headers: Record<string, string> = {}) {
      const response = await ctx.app.inject({ method: 'PUT', url: new URL(uploadUrl).pathname, headers: { 'content-type': 'application/octet-stream', ...headers }, payload: body });
      return { status: response.statusCode, text: response.body };
    }

    async function opaSet(org: TestOrganization): Promise<{ setId: string; oldPolicyId: string }> {
      const api = org.owner.api;
      const old = await api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes: { name: 'old', kind: 'opa', query: 'data.x.deny', 'enforcement-level': 'advisory' } } });
      assertStatus(old, 201);
      const set = await api.post(`/organizations/${org.name}/policy-sets`, {
        data: { type: 'policy-sets', attributes: { name: 'versioned', kind: 'opa' }, relationships: { policies: { data: [{ id: old.body.data.id, type: 'policies' }] } } },
      });
      assertStatus(set, 201);
      return { setId: set.body.data.id, oldPolicyId: old.body.data.id };
    }

    async function newVersion(api: ApiClient, setId: string): Promise<{ id: string; upload: string }> {
      const created = await api.post(`/policy-sets/${setId}/versions`);
      assertStatus(created, 201);
      return { id: created.body.data.id, upload: created.body.data.links.upload };
    }

    async function policiesOf(api: ApiClient, setId: string): Promise<string[]> {
      const set = await api.get(`/policy-sets/${setId}`);
      assertStatus(set, 200);
      return (set.body.data.relationships.policies.data as Array<{ id: string }>).map((p) => p.id);
    }

    it('creates a pending version with its upload link, as HCP does', async () => {
      const org = await createOrganization(ctx);
      const { setId } = await opaSet(org);
      const created = await org.owner.api.post(`/policy-sets/${setId}/versions`);
      assertStatus(created, 201);
      const data = created.body.data;
      assert.equal(data.type, 'policy-set-versions');
      assert.match(data.id, /^polsetver-/);
      assert.equal(data.attributes.source, 'tfe-api');
      assert.equal(data.attributes.status, 'pending');
      assert.ok(data.attributes['status-timestamps']['pending-at']);
      assert.equal(data.attributes.error, null);
      assert.deepEqual(data.relationships['policy-set'].data, { id: setId, type: 'policy-sets' });
      assert.match(data.links.upload, /\/api\/v2\/policy-set-versions\/uploads\/.{40,}$/);

      const shown = await org.owner.api.get(`/policy-set-versions/${data.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.status, 'pending');
      assert.equal(shown.body.data.links.upload, data.links.upload, 'a manager reads the upload link while the version is pending, as go-tfe does');
    });

    it("a valid archive becomes the set's policies: ready, the old policy unlinked, each Rego checked and stored", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const { setId, oldPolicyId } = await opaSet(org);
      const version = await newVersion(api, setId);
      const archive = tarGz([
        { path: './policies.hcl', text: POLICIES_HCL },
        { path: './deny-nothing.rego', text: DENY_NOTHING },
        { path: './allow-all.rego', text: ALLOW_ALL },
        { path: './README.md', text: 'skipped' },
      ]);
      const uploaded = await put(version.upload, archive);
      assert.equal(uploaded.status, 200, uploaded.text);

      const shown = await api.get(`/policy-set-versions/${version.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.status, 'ready');
      assert.ok(shown.body.data.attributes['status-timestamps']['ready-at']);
      assert.equal(shown.body.data.attributes.error, null);
      assert.equal(shown.body.data.links.upload, undefined, 'the upload link is gone once the version left pending');

      const ids = await policiesOf(api, setId);
      assert.equal(ids.length, 2);
      assert.ok(!ids.includes(oldPolicyId), 'the policy not in the archive left the set');
      const policies = await Promise.all(ids.map((id) => api.get(`/policies/${id}`)));
      const byName = new Map(policies.map((p) => [p.body.data.attributes.name, p.body.data]));
      assert.equal(byName.get('deny-nothing')!.attributes.query, 'data.terraform.deny_nothing.deny');
      assert.equal(byName.get('deny-nothing')!.attributes['enforcement-level'], 'mandatory');
      assert.equal(byName.get('allow-all')!.attributes['enforcement-level'], 'advisory', 'HCP defaults the level to advisory');
      const text = await ctx.app.inject({ method: 'GET', url: `/api/v2/policies/${byName.get('allow-all')!.id}/download`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.equal(text.body, ALLOW_ALL);

      // The upload link takes one archive.
      const again = await put(version.upload, archive);
      assert.equal(again.status, 409, again.text);
      assert.match(JSON.parse(again.text).errors[0].detail, /already uploaded/);
    });

    it("an invalid archive errors the version with why and leaves the set's policies as they were", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const { setId, oldPolicyId } = await opaSet(org);
      const cases: Array<{ archive: Buffer; why: RegExp }> = [
        { archive: tarGz([{ path: 'deny-nothing.rego', text: DENY_NOTHING }]), why: /no policies\.hcl/ },
        { archive: tarGz([{ path: 'policies.hcl', text: POLICIES_HCL }, { path: 'deny-nothing.rego', text: DENY_NOTHING }]), why: /no allow-all\.rego/ },
        { archive: tarGz([{ path: 'policies.hcl', text: 'policy "a" { query = "data.a.deny" }' }, { path: 'a.rego', text: 'package a\ndeny contains msg if {' }]), why: /policy a: the policy does not compile/ },
        { archive: tarGz([{ path: 'policies.hcl', text: 'policy "a" { query = "data.a.deny" }' }, { path: 'a.rego', text: 'package a\nx := http.send({})' }]), why: /http\.send/ },
        { archive: tarGz([{ path: 'policies.hcl', text: 'module "m" { source = "x" }' }]), why: /only policy blocks/ },
        { archive: tarGz([{ path: 'policies.hcl', text: 'policy "a" { query = data.a.deny }' }]), why: /policies\.hcl:1: unexpected "\."/ },
        { archive: tarGz([{ path: '../escape.rego', text: DENY_NOTHING }]), why: /leaves the archive's root/ },
        { archive: tarGz([{ path: 'link.rego', type: 'SymbolicLink', linkpath: '/etc/passwd' }]), why: /SymbolicLink; only files and directories/ },
        { archive: tarGz([{ path: 'big.rego', text: 'x'.repeat(POLICY_MAX_BYTES + 1) }]), why: /big\.rego is larger than the limit of 4096 bytes/ },
        // A skipped file still counts: 1 MiB of zeros is a 1 KiB gzip, refused at the inflated bound, not read to its end.
        { archive: tarGz([{ path: 'zeros.bin', text: '\0'.repeat(1024 * 1024) }]), why: /inflates to more than 131072 bytes/ },
        { archive: Buffer.from('not a tarball at all'), why: /not gzip-compressed/ },
      ];
      for (const { archive, why } of cases) {
        const version = await newVersion(api, setId);
        const refused = await put(version.upload, archive);
        assert.equal(refused.status, 422, `${why}: ${refused.text}`);
        assert.match(JSON.parse(refused.text).errors[0].detail, why);
        const shown = await api.get(`/policy-set-versions/${version.id}`);
        assert.equal(shown.body.data.attributes.status, 'errored', String(why));
        assert.match(shown.body.data.attributes.error, why);
        assert.ok(shown.body.data.attributes['status-timestamps']['errored-at']);
      }
      assert.deepEqual(await policiesOf(api, setId), [oldPolicyId]);
      const listed = await api.get(`/organizations/${org.name}/policies`);
      assert.deepEqual(listed.body.data.map((p: { attributes: { name: string } }) => p.attributes.name), ['old'], 'no policy was created by a refused archive');
    });

    it('a Sentinel set takes sentinel.hcl and its sources (stored, never run), as go-tfe uploads them', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const set = await api.post(`/organizations/${org.name}/policy-sets`, { data: { type: 'policy-sets', attributes: { name: 'sentinel' } } });
      assertStatus(set, 201);
      const version = await newVersion(api, set.body.data.id);
      const uploaded = await put(version.upload, tarGz([
        { path: 'sentinel.hcl', text: 'policy "tags" {\n  source = "./rules/tags.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n' },
        { path: 'rules/tags.sentinel', text: 'main = rule { true }\n' },
      ]));
      assert.equal(uploaded.status, 200, uploaded.text);
      assert.equal((await api.get(`/policy-set-versions/${version.id}`)).body.data.attributes.status, 'ready');
      const [id] = await policiesOf(api, set.body.data.id);
      const policy = await api.get(`/policies/${id}`);
      assert.equal(policy.body.data.attributes.kind, 'sentinel');
      assert.equal(policy.body.data.attributes['enforcement-level'], 'hard-mandatory');
    });

    it("the set shows its newest version and its current one (the newest that became ready), and includes them", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const { setId } = await opaSet(org);
      const bare = await api.get(`/policy-sets/${setId}`);
      assert.equal(bare.body.data.relationships['newest-version'], undefined);
      assert.equal(bare.body.data.relationships['current-version'], undefined);

      const first = await newVersion(api, setId);
      const second = await newVersion(api, setId);
      assert.equal((await put(first.upload, tarGz([{ path: 'policies.hcl', text: 'policy "a" { query = "data.a.deny" }' }, { path: 'a.rego', text: 'package a\ndeny contains 1 if { false }\n' }]))).status, 200);
      const shown = await api.get(`/policy-sets/${setId}?include=newest-version,current-version`);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.data.relationships['newest-version'].data, { id: second.id, type: 'policy-set-versions' });
      assert.deepEqual(shown.body.data.relationships['current-version'].data, { id: first.id, type: 'policy-set-versions' });
      const included = new Map((shown.body.included as Array<{ id: string; attributes: { status: string } }>).map((r) => [r.id, r.attributes.status]));
      assert.deepEqual(Object.fromEntries(included), { [second.id]: 'pending', [first.id]: 'ready' });
      const listed = await api.get(`/organizations/${org.name}/policy-sets?include=current-version`);
      assert.deepEqual(listed.body.included.map((r: { id: string }) => r.id), [first.id]);
    });

    it('unknown ids are 404 before any body; only managers create versions; members read them', async () => {
      const org = await createOrganization(ctx);
      const { setId } = await opaSet(org);
      assertError(await org.owner.api.post('/policy-sets/polset-unknown/versions'), 404);
      assertError(await org.owner.api.get('/policy-set-versions/polsetver-unknown'), 404);
      const unknownUpload = await ctx.app.inject({
        method: 'PUT', url: '/api/v2/policy-set-versions/uploads/nope',
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * 1024 * 1024) }, payload: Buffer.alloc(16),
      });
      assert.equal(unknownUpload.statusCode, 404, unknownUpload.body);

      const member = await addMember(ctx, org);
      assertError(await member.api.post(`/policy-sets/${setId}/versions`), 403);
      const version = await newVersion(org.owner.api, setId);
      const read = await member.api.get(`/policy-set-versions/${version.id}`);
      assertStatus(read, 200);
      assert.equal(read.body.data.links.upload, undefined, 'a member who may not manage the set never sees its upload link');
      const stranger = await createOrganization(ctx);
      assertError(await stranger.owner.api.get(`/policy-set-versions/${version.id}`), 404);
      assertError(await stranger.owner.api.post(`/policy-sets/${setId}/versions`), 404);
    });

    it('an archive over the bound (32 × TEAMSTAGE_POLICY_MAX_BYTES) is refused with 413 and the version stays pending', async () => {
      const org = await createOrganization(ctx);
      const { setId } = await opaSet(org);
      const version = await newVersion(org.owner.api, setId);
      const refused = await put(version.upload, Buffer.alloc(32 * POLICY_MAX_BYTES + 1));
      assert.equal(refused.status, 413, refused.text);
      assert.equal((await org.owner.api.get(`/policy-set-versions/${version.id}`)).body.data.attributes.status, 'pending');
    });
  });
}
