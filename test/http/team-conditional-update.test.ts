/**
 * A PATCH of a team is decided on the row its lookup read and written only if the team is still stored so
 * (issue 39: one statement and its audit entry). A row changed in between must not be overwritten with a
 * decision made on the old one, nor audited as if it had been: nothing is written, and the service decides
 * again under the lock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditRow } from '../../src/record/audit-trail.js';
import { teamUpdated } from '../../src/teams/team-audit.js';
import { teamFromRow } from '../../src/teams/team.js';
import { TeamsRepository } from '../../src/teams/teams.repository.js';
import { createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`a team written only if unchanged since its read (${dialect})`, () => {
    let ctx: TestContext;
    let teams: TeamsRepository;
    before(async () => {
      ctx = await createTestApp(dialect);
      teams = new TeamsRepository(ctx.handle.db, dialect);
    });
    after(() => ctx.close());

    const auditCount = async (teamId: string) =>
      (await ctx.handle.db.selectFrom('audit_trail').select('id').where('resource_id', '=', teamId).where('action', '=', 'update').execute()).length;

    it('a stale read writes nothing and records nothing; a fresh one writes the change with its audit entry', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'secret' });
      const stale = (await teams.readForCaller(team.id, { kind: 'user', userId: org.owner.id }, new Date().toISOString()))!.stored;
      // Another request changes the team after this one read it.
      const other = await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { 'sso-team-id': 'sso-1' } } });
      assert.equal(other.status, 200, other.text);
      const audited = await auditCount(team.id);

      const changes = { visibility: 'organization' as const, updated_at: new Date().toISOString() };
      const entry = (read: typeof stale) => auditRow(teamUpdated({ kind: 'site-admin', tokenId: 'at-test' }, teamFromRow(read), teamFromRow({ ...read, ...changes }))!);
      assert.equal(await teams.updateIfUnchanged(stale, changes, entry(stale)), undefined, 'a stale read must not write');
      assert.equal((await teams.findById(team.id))!.visibility, 'secret');
      assert.equal((await teams.findById(team.id))!.ssoTeamId, 'sso-1', 'the other change stays');
      assert.equal(await auditCount(team.id), audited, 'nothing audited for a write that did not happen');

      const fresh = (await teams.readForCaller(team.id, { kind: 'user', userId: org.owner.id }, new Date().toISOString()))!.stored;
      const stored = await teams.updateIfUnchanged(fresh, changes, entry(fresh));
      assert.equal(stored?.visibility, 'organization');
      assert.equal(stored?.ssoTeamId, 'sso-1');
      assert.equal((await teams.findById(team.id))!.visibility, 'organization');
      assert.equal(await auditCount(team.id), audited + 1);
    });

    it('a PATCH whose team changed since its lookup still applies on the row as stored (the locked path)', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { 'organization-access': { 'read-workspaces': true } });
      // Two PATCHes of different keys at once: whichever loses the race decides again on the other's row.
      const [first, second] = await Promise.all([
        org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { 'organization-access': { 'read-projects': true } } } }),
        org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { 'organization-access': { 'manage-vcs-settings': true } } } }),
      ]);
      assert.equal(first.status, 200, first.text);
      assert.equal(second.status, 200, second.text);
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      const access = shown.body.data.attributes['organization-access'];
      assert.deepEqual([access['read-workspaces'], access['read-projects'], access['manage-vcs-settings']], [true, true, true]);
    });
  });
}
