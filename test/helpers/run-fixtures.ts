import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { ApiClient as ApiClientClass, type ApiClient } from './api-client.js';
import { addMember, addToTeam, createTeam, siteAdmin, unique, type TestOrganization, type TestUser } from './fixtures.js';
import type { TestContext } from './test-app.js';

/** A ustar header block for one regular file. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512, 0);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100, 'latin1');
  header.write('0000000\0', 108, 'latin1');
  header.write('0000000\0', 116, 'latin1');
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136, 'latin1');
  header.write('        ', 148, 'latin1');
  header.write('0', 156, 'latin1');
  header.write('ustar\0', 257, 'latin1');
  header.write('00', 263, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

/** A real tar.gz holding the given files (what go-tfe's slug packer uploads). */
export function tarGz(files: Record<string, string> = { 'main.tf': 'terraform {}\n' }): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content, 'utf8');
    parts.push(tarHeader(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return gzipSync(Buffer.concat(parts));
}

export async function createWorkspace(api: ApiClient, organizationName: string, attributes: Record<string, unknown> = {}): Promise<{ id: string; name: string; body: any }> {
  const name = (attributes.name as string | undefined) ?? unique('ws');
  const created = await api.post(`/organizations/${organizationName}/workspaces`, { data: { type: 'workspaces', attributes: { name, ...attributes } } });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.data.id, name, body: created.body };
}

/** PUTs raw bytes to an upload URL (absolute, as the API returns it) through the app. */
export async function putUpload(ctx: TestContext, uploadUrl: string, body: Buffer, contentType = 'application/octet-stream') {
  const url = new URL(uploadUrl);
  return ctx.app.inject({ method: 'PUT', url: url.pathname, headers: { 'content-type': contentType }, payload: body });
}

/** Creates a configuration version and uploads a small tar.gz to it; answers its id. */
export async function uploadConfiguration(ctx: TestContext, api: ApiClient, workspaceId: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post(`/workspaces/${workspaceId}/configuration-versions`, {
    data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false, ...attributes } },
  });
  assert.equal(created.status, 201, created.text);
  const uploaded = await putUpload(ctx, created.body.data.attributes['upload-url'], tarGz());
  assert.equal(uploaded.statusCode, 200, uploaded.body);
  return created.body.data.id;
}

/** A workspace with an uploaded configuration: ready for runs. */
export async function createRunnableWorkspace(ctx: TestContext, api: ApiClient, organizationName: string, attributes: Record<string, unknown> = {}) {
  const workspace = await createWorkspace(api, organizationName, attributes);
  const configurationVersionId = await uploadConfiguration(ctx, api, workspace.id);
  return { ...workspace, configurationVersionId };
}

export async function createRun(api: ApiClient, workspaceId: string, attributes: Record<string, unknown> = {}, query = ''): Promise<any> {
  const created = await api.post(`/runs${query}`, {
    data: { type: 'runs', attributes, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

/** Polls the run until its status is one of `statuses`; fails with the last status seen after the timeout. */
export async function waitForRunStatus(api: ApiClient, runId: string, statuses: string | string[], timeoutMs = 10_000): Promise<any> {
  const wanted = Array.isArray(statuses) ? statuses : [statuses];
  const deadline = Date.now() + timeoutMs;
  let last: any;
  for (;;) {
    const shown = await api.get(`/runs/${runId}`);
    assert.equal(shown.status, 200, shown.text);
    last = shown.body.data;
    if (wanted.includes(last.attributes.status)) return last;
    if (Date.now() > deadline) assert.fail(`run ${runId} is ${last.attributes.status}, expected ${wanted.join(' or ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Registers a run task pointing at `url` (the verification request must succeed). */
export async function createRunTask(api: ApiClient, organizationName: string, url: string, attributes: Record<string, unknown> = {}): Promise<{ id: string; body: any }> {
  const created = await api.post(`/organizations/${organizationName}/tasks`, {
    data: { type: 'tasks', attributes: { name: unique('task'), url, category: 'task', ...attributes } },
  });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.data.id, body: created.body };
}

export async function attachRunTask(api: ApiClient, workspaceId: string, taskId: string, attributes: Record<string, unknown> = {}): Promise<{ id: string; body: any }> {
  const created = await api.post(`/workspaces/${workspaceId}/tasks`, {
    data: {
      type: 'workspace-tasks',
      attributes: { 'enforcement-level': 'advisory', ...attributes },
      relationships: { task: { data: { type: 'tasks', id: taskId } } },
    },
  });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.data.id, body: created.body };
}

/** An active member of a new team holding exactly these organization-access rights. */
export async function memberWithAccess(ctx: TestContext, org: TestOrganization, access: Record<string, boolean>): Promise<TestUser> {
  const member = await addMember(ctx, org);
  const team = await createTeam(ctx, org, { 'organization-access': access });
  await addToTeam(org, team.id, member.username);
  return member;
}

/** The organization token (acts as an owner, but is not a person). */
export async function organizationToken(ctx: TestContext, org: TestOrganization): Promise<ApiClient> {
  const created = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
  assert.equal(created.status, 201, created.text);
  return new ApiClientClass(ctx.app, created.body.data.attributes.token);
}

/** Moves the organization to another edition (site admin). */
export async function subscribe(ctx: TestContext, org: TestOrganization, featureSetId: 'fs-free' | 'fs-standard' | 'fs-business'): Promise<void> {
  const subscribed = await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, {
    data: { type: 'subscriptions', relationships: { 'feature-set': { data: { id: featureSetId, type: 'feature-sets' } } } },
  });
  assert.equal(subscribed.status, 201, subscribed.text);
}
