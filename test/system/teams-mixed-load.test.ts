/**
 * Issue 4: a mixed load on teams — reads and writes from 50 connections for 30 s (TEAMSTAGE_LOAD_SECONDS
 * to change) against a real server process, on SQLite and on PostgreSQL. Zero 5xx, and every create
 * that got 200 is readable afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const seconds = Number(process.env.TEAMSTAGE_LOAD_SECONDS ?? 30);
const connections = 50;

for (const dialect of testDialects()) {
  describe(`mixed teams load, ${connections} connections for ${seconds} s (${dialect})`, { timeout: (seconds + 120) * 1000 }, () => {
    let server: ServerProcess | undefined;
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      await server?.kill('SIGTERM');
      await drop?.();
    });

    it('answers no 5xx and keeps every acknowledged create', async () => {
      const database = await freshDatabaseUrl(dialect);
      drop = database.drop;
      const siteToken = randomBytes(24).toString('hex');
      server = await startServerProcess({ DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '0' });
      const client = new HttpClient(server.url, connections);
      const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `load${randomBytes(3).toString('hex')}`);

      const created = new Map<string, string>(); // id → name, acknowledged with 200
      const deleted = new Set<string>();
      const statuses = new Map<number, number>();
      let requests = 0;
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const deadline = Date.now() + seconds * 1000;

      const worker = async (index: number) => {
        let n = 0;
        while (Date.now() < deadline) {
          n += 1;
          const roll = Math.random();
          const ids = [...created.keys()];
          const someId = ids[Math.floor(Math.random() * ids.length)];
          let response;
          if (roll < 0.3 || !someId) {
            const name = `w${index}-${n}-${randomBytes(3).toString('hex')}`;
            response = await client.request('POST', `/organizations/${organization}/teams`, ownerToken, {
              data: { type: 'teams', attributes: { name, visibility: Math.random() < 0.5 ? 'organization' : 'secret' } },
            });
            if (response.status === 200) created.set(response.body.data.id, name);
          } else if (roll < 0.55) {
            response = await client.request('GET', `/teams/${someId}`, ownerToken);
          } else if (roll < 0.75) {
            response = await client.request('GET', `/organizations/${organization}/teams?page%5Bsize%5D=20&q=w${index % 10}`, ownerToken);
          } else if (roll < 0.85) {
            response = await client.request('GET', `/organizations/${organization}/teams?filter%5Bnames%5D=${created.get(someId)}`, ownerToken);
          } else if (roll < 0.95) {
            response = await client.request('PATCH', `/teams/${someId}`, ownerToken, {
              data: { type: 'teams', attributes: { 'organization-access': { 'manage-workspaces': Math.random() < 0.5 } } },
            });
          } else if (!deleted.has(someId)) {
            deleted.add(someId);
            response = await client.request('DELETE', `/teams/${someId}`, ownerToken);
            if (response.status !== 204) deleted.delete(someId);
          } else {
            response = await client.request('GET', `/teams/${someId}`, ownerToken);
          }
          requests += 1;
          count(response.status);
        }
      };
      await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));

      const fivexx = [...statuses.entries()].filter(([status]) => status >= 500);
      assert.deepEqual(fivexx, [], `5xx answers: ${JSON.stringify(fivexx)}`);
      let missing = 0;
      for (const [id] of created) {
        if (deleted.has(id)) continue;
        const shown = await client.request('GET', `/teams/${id}`, ownerToken);
        if (shown.status !== 200) missing += 1;
      }
      assert.equal(missing, 0, 'every acknowledged create is readable');
      await client.close();
      console.log(
        `${dialect}: ${requests} requests in ${seconds} s (${Math.round(requests / seconds)}/s), ${created.size} teams created, ` +
          `${deleted.size} deleted, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    });
  });
}
