/**
 * Issue 14 item 3: two server processes on one database (PostgreSQL, and one SQLite file, both supported)
 * take concurrent PATCHes of different organization-access keys of one team, spread over both nodes. No
 * key may be lost: a read-modify-write must be atomic across processes, not only inside one. The figures
 * (keys kept of keys sent) are printed for RELIABILITY.md. TEAMSTAGE_PATCH_ROUNDS changes the round count.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const ROUNDS = Number(process.env.TEAMSTAGE_PATCH_ROUNDS ?? 10);
/** Keys that no consistency rule ties to another, so each may be granted alone. */
const KEYS = [
  'manage-policies', 'manage-policy-overrides', 'manage-run-tasks', 'manage-vcs-settings', 'manage-agent-pools',
  'read-workspaces', 'manage-providers', 'manage-modules', 'manage-membership', 'delegate-policy-overrides',
];

for (const dialect of testDialects()) {
  describe(`concurrent PATCHes on two nodes sharing one ${dialect} database`, { timeout: 180_000 }, () => {
    const nodes: ServerProcess[] = [];
    const clients: HttpClient[] = [];
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(nodes.map((node) => node.kill('SIGTERM')));
      await drop?.();
    });

    it(`${KEYS.length} concurrent PATCHes of different keys, split over two nodes, keep every key (${ROUNDS} rounds)`, async (t) => {
      const database = await freshDatabaseUrl(dialect);
      drop = database.drop;
      const siteToken = randomBytes(24).toString('hex');
      const env = { DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '0' };
      // One after the other: the second node of a PostgreSQL cluster waits before its first write anyway.
      for (let index = 0; index < 2; index++) {
        const node = await startServerProcess(env);
        nodes.push(node);
        clients.push(new HttpClient(node.url, KEYS.length));
      }
      const [first, second] = clients as [HttpClient, HttpClient];
      const { ownerToken, organization } = await bootstrapOrganization(first, siteToken, `rmw${randomBytes(3).toString('hex')}`);

      let kept = 0;
      let roundsLosingKeys = 0;
      const statuses = new Map<number, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const created = await first.request('POST', `/organizations/${organization}/teams`, ownerToken, {
          data: { type: 'teams', attributes: { name: `round-${round}` } },
        });
        assert.equal(created.status, 200, created.text);
        const teamId = created.body.data.id as string;
        const answers = await Promise.all(
          KEYS.map((key, index) =>
            (index % 2 === 0 ? first : second).request('PATCH', `/teams/${teamId}`, ownerToken, {
              data: { type: 'teams', attributes: { 'organization-access': { [key]: true } } },
            }),
          ),
        );
        for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const stored = (await second.request('GET', `/teams/${teamId}`, ownerToken)).body.data.attributes['organization-access'];
        const keptNow = KEYS.filter((key) => stored[key] === true).length;
        kept += keptNow;
        if (keptNow < KEYS.length) roundsLosingKeys += 1;
      }
      const figure = `${dialect}, two nodes: ${kept} of ${ROUNDS * KEYS.length} keys kept; ${roundsLosingKeys} of ${ROUNDS} rounds lost a key; answers ${JSON.stringify(Object.fromEntries(statuses))}`;
      t.diagnostic(figure);
      assert.deepEqual([...statuses.keys()], [200], `every PATCH answers 200: ${figure}`);
      assert.equal(kept, ROUNDS * KEYS.length, figure);
    });
  });
}
