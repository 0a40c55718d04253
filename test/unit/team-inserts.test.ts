import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { AuditTrailRecorder } from '../../src/record/audit-trail-recorder.js';
import { AuditTrailRepository } from '../../src/record/audit-trail.repository.js';
import { auditRow, type AuditTrailRow } from '../../src/record/audit-trail.js';
import { TeamInserts } from '../../src/teams/team-inserts.js';
import { TeamsRepository, type TeamRow } from '../../src/teams/teams.repository.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

let sequence = 0;
function teamRow(organization: string, name: string): TeamRow {
  const now = new Date().toISOString();
  sequence += 1;
  return {
    id: `team-inserts-${sequence}-${Math.random().toString(36).slice(2)}`,
    organization_name: organization,
    name,
    name_lower: name.toLowerCase(),
    sso_team_id: null,
    visibility: sequence % 2 === 0 ? 'organization' : 'secret',
    allow_member_token_management: 1,
    organization_access: '{}',
    is_owners: 0,
    service_account_user_id: null,
    created_at: now,
    updated_at: now,
  };
}

/** The audit trail entry of a new team (what TeamsService writes with it). */
function auditOf(row: TeamRow): AuditTrailRow {
  return auditRow({
    organizationName: row.organization_name,
    actor: { userId: 'user-batch', name: 'batch', kind: 'user' },
    resource: { id: row.id, type: 'team', action: 'create', meta: { after: { name: row.name } } },
  });
}

/** A repository that records each batch it is asked to write, and may be slowed down. */
class RecordingTeams extends TeamsRepository {
  readonly batches: number[] = [];
  running = 0;
  mostRunning = 0;
  delayMs = 0;

  override async insertUnlessNameTaken(rows: readonly TeamRow[], alsoWrite?: Parameters<TeamsRepository['insertUnlessNameTaken']>[1]): Promise<Set<string>> {
    this.batches.push(rows.length);
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    try {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      return await super.insertUnlessNameTaken(rows, alsoWrite);
    } finally {
      this.running -= 1;
    }
  }
}

for (const dialect of testDialects()) {
  describe(`team creations written in batches (${dialect})`, () => {
    let handle: DatabaseHandle;
    let drop: () => Promise<void>;
    let organization = 0;

    before(async () => {
      const database = await freshDatabaseUrl(dialect);
      drop = database.drop;
      handle = openDatabase(database.url);
      await migrateToLatest(handle);
    });
    after(async () => {
      await handle.close();
      await drop();
    });

    async function newOrganization(): Promise<string> {
      organization += 1;
      const name = `batch-org-${organization}`;
      const now = new Date().toISOString();
      await handle.db
        .insertInto('organizations')
        .values({ name, name_lower: name, email: 'ops@example.com', feature_set: '{}', created_at: now, updated_at: now })
        .execute();
      return name;
    }

    const recorder = () => new AuditTrailRecorder(handle.db, new AuditTrailRepository(handle.db));
    const newTeam = (organization: string, name: string): [TeamRow, AuditTrailRow] => {
      const row = teamRow(organization, name);
      return [row, auditOf(row)];
    };
    /** The audit trail's team entries of an organization, by team name. */
    async function audited(name: string): Promise<string[]> {
      const rows = await handle.db.selectFrom('audit_trail').select('meta').where('organization_name', '=', name).where('resource_type', '=', 'team').execute();
      return rows.map((row) => (JSON.parse(row.meta!) as { after: { name: string } }).after.name).sort();
    }

    async function teamCount(name: string): Promise<{ teams: number; visible: number }> {
      const row = await handle.db.selectFrom('organization_team_counts').select(['teams', 'visible_teams']).where('organization_name', '=', name).executeTakeFirst();
      return { teams: Number(row?.teams ?? 0), visible: Number(row?.visible_teams ?? 0) };
    }

    it('writes creations that arrive together in one statement, and each is in the table and counted', async () => {
      const org = await newOrganization();
      const teams = new RecordingTeams(handle.db, handle.dialect);
      const inserts = new TeamInserts(teams, recorder());
      const rows = Array.from({ length: 40 }, (_, i) => teamRow(org, `team-${i}`));
      const outcomes = await Promise.all(rows.map((row) => inserts.insert(row, auditOf(row))));
      assert.deepEqual(new Set(outcomes), new Set(['inserted']));
      assert.deepEqual(teams.batches, [40], 'one batch for forty creations');
      const stored = await handle.db.selectFrom('teams').select('id').where('organization_name', '=', org).execute();
      assert.deepEqual(new Set(stored.map((row) => row.id)), new Set(rows.map((row) => row.id)));
      assert.deepEqual(await teamCount(org), { teams: 40, visible: rows.filter((row) => row.visibility === 'organization').length });
      assert.equal((await audited(org)).length, 40, 'each team with its audit trail entry, in the same batch');
    });

    it('tells each caller its own outcome: a name already taken, or taken by an earlier row of the same batch', async () => {
      const org = await newOrganization();
      const inserts = new TeamInserts(new TeamsRepository(handle.db, handle.dialect), recorder());
      assert.equal(await inserts.insert(...newTeam(org, 'platform')), 'inserted');
      const outcomes = await Promise.all([
        inserts.insert(...newTeam(org, 'PLATFORM')),
        inserts.insert(...newTeam(org, 'network')),
        inserts.insert(...newTeam(org, 'Network')),
        inserts.insert(...newTeam(org, 'security')),
      ]);
      assert.deepEqual(outcomes, ['name-taken', 'inserted', 'name-taken', 'inserted']);
      assert.equal((await teamCount(org)).teams, 3);
      const names = await handle.db.selectFrom('teams').select('name').where('organization_name', '=', org).orderBy('name').execute();
      assert.deepEqual(names.map((row) => row.name), ['network', 'platform', 'security']);
      assert.deepEqual(await audited(org), ['network', 'platform', 'security'], 'no entry for a creation refused for its name');
    });

    it('when a batch fails as a whole, retries its rows one by one so only the bad row fails', async () => {
      const org = await newOrganization();
      const teams = new RecordingTeams(handle.db, handle.dialect);
      const inserts = new TeamInserts(teams, recorder());
      const settled = await Promise.allSettled([
        inserts.insert(...newTeam(org, 'first')),
        inserts.insert(...newTeam('no-such-organization', 'orphan')),
        inserts.insert(...newTeam(org, 'second')),
      ]);
      assert.deepEqual(teams.batches, [3, 1, 1, 1]);
      assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'rejected', 'fulfilled']);
      const names = await handle.db.selectFrom('teams').select('name').where('organization_name', '=', org).orderBy('name').execute();
      assert.deepEqual(names.map((row) => row.name), ['first', 'second']);
      assert.equal((await teamCount(org)).teams, 2);
      // The failed batch rolled back its entries with its teams; the retried rows wrote their own once.
      assert.deepEqual(await audited(org), ['first', 'second']);
    });

    it('two nodes creating the same names in opposite orders never fail a batch (no deadlock between batches)', async () => {
      const org = await newOrganization();
      const failures: unknown[] = [];
      class FailureRecordingTeams extends TeamsRepository {
        override async insertUnlessNameTaken(rows: readonly TeamRow[], alsoWrite?: Parameters<TeamsRepository['insertUnlessNameTaken']>[1]): Promise<Set<string>> {
          try {
            return await super.insertUnlessNameTaken(rows, alsoWrite);
          } catch (error) {
            failures.push(error);
            throw error;
          }
        }
      }
      const nodeA = new TeamInserts(new FailureRecordingTeams(handle.db, handle.dialect), recorder());
      const nodeB = new TeamInserts(new FailureRecordingTeams(handle.db, handle.dialect), recorder());
      for (let round = 0; round < 5; round++) {
        const names = Array.from({ length: 60 }, (_, i) => `clash-${round}-${String(i).padStart(2, '0')}`);
        const [fromA, fromB] = await Promise.all([
          Promise.all(names.map((name) => nodeA.insert(...newTeam(org, name)))),
          Promise.all([...names].reverse().map((name) => nodeB.insert(...newTeam(org, name)))),
        ]);
        fromB.reverse();
        names.forEach((name, i) => assert.deepEqual([fromA[i], fromB[i]].sort(), ['inserted', 'name-taken'], name));
      }
      assert.deepEqual(failures, []);
    });

    it('keeps at most two batches on their way; creations arriving meanwhile gather into the next', async () => {
      const org = await newOrganization();
      const teams = new RecordingTeams(handle.db, handle.dialect);
      teams.delayMs = 200;
      const inserts = new TeamInserts(teams, recorder());
      const pending: Array<Promise<unknown>> = [];
      for (let wave = 0; wave < 6; wave++) {
        for (let i = 0; i < 5; i++) pending.push(inserts.insert(...newTeam(org, `wave-${wave}-${i}`)));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await Promise.all(pending);
      assert.equal(teams.mostRunning, 2);
      assert.equal(teams.batches.reduce((sum, size) => sum + size, 0), 30);
      assert.ok(teams.batches.length < 6, `batches: ${JSON.stringify(teams.batches)}`);
      assert.equal((await teamCount(org)).teams, 30);
    });
  });
}
