import assert from 'node:assert/strict';
import { ApiClient } from './api-client.js';
import type { TestContext } from './test-app.js';

export interface TestUser {
  id: string;
  username: string;
  email: string;
  token: string;
  api: ApiClient;
}

let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}${Math.random().toString(36).slice(2, 7)}`;
}

export function siteAdmin(ctx: TestContext): ApiClient {
  return new ApiClient(ctx.app, ctx.siteToken);
}

export function anonymous(ctx: TestContext): ApiClient {
  return new ApiClient(ctx.app);
}

/** A user with a personal token, created by the site admin. */
export async function createUser(ctx: TestContext, username = unique('user')): Promise<TestUser> {
  const email = `${username}@example.test`;
  const created = await siteAdmin(ctx).post('/admin/users', { data: { type: 'users', attributes: { username, email } } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const token = await siteAdmin(ctx).post(`/users/${id}/authentication-tokens`, {});
  assert.equal(token.status, 201, token.text);
  const secret = token.body.data.attributes.token as string;
  return { id, username, email, token: secret, api: new ApiClient(ctx.app, secret) };
}

export interface TestOrganization {
  name: string;
  owner: TestUser;
  ownersTeamId: string;
}

/** An organization created by a new user, who is therefore its first owner. */
export async function createOrganization(ctx: TestContext, name = unique('org'), owner?: TestUser): Promise<TestOrganization> {
  const user = owner ?? (await createUser(ctx));
  const created = await user.api.post('/organizations', { data: { type: 'organizations', attributes: { name, email: `ops@${name}.test` } } });
  assert.equal(created.status, 201, created.text);
  const teams = await user.api.get(`/organizations/${name}/teams?filter[names]=owners`);
  assert.equal(teams.status, 200, teams.text);
  return { name, owner: user, ownersTeamId: teams.body.data[0].id };
}

/** Invites a new user into the organization and accepts, so they are an active member of no team. */
export async function addMember(ctx: TestContext, org: TestOrganization, user?: TestUser): Promise<TestUser & { membershipId: string }> {
  const member = user ?? (await createUser(ctx));
  const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
    data: { type: 'organization-memberships', attributes: { email: member.email } },
  });
  assert.equal(invited.status, 201, invited.text);
  const accepted = await member.api.post(`/organization-memberships/${invited.body.data.id}/actions/accept`);
  assert.equal(accepted.status, 200, accepted.text);
  return { ...member, membershipId: invited.body.data.id };
}

export async function createTeam(
  ctx: TestContext,
  org: TestOrganization,
  attributes: Record<string, unknown> = {},
  api: ApiClient = org.owner.api,
): Promise<{ id: string; name: string; body: any }> {
  const name = (attributes.name as string | undefined) ?? unique('team');
  const created = await api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name, ...attributes } } });
  assert.equal(created.status, 200, created.text);
  return { id: created.body.data.id, name, body: created.body };
}

export async function addToTeam(org: TestOrganization, teamId: string, username: string): Promise<void> {
  const added = await org.owner.api.post(`/teams/${teamId}/relationships/users`, { data: [{ type: 'users', id: username }] });
  assert.equal(added.status, 204, added.text);
}

export { unique };
