/**
 * Migrations run at start and are safe when several nodes start at once. Three processes
 * start together on one fresh database; all become ready and serve the same data.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`three nodes starting at once on a fresh database (${dialect})`, { timeout: 90_000 }, () => {
    const servers: ServerProcess[] = [];
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      await Promise.all(servers.map((server) => server.kill('SIGTERM')));
      await drop?.();
    });

    it('migrates once, and every node serves what another wrote', async () => {
      const database = await freshDatabaseUrl(dialect);
      drop = database.drop;
      const siteToken = randomBytes(24).toString('hex');
      const env = { DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken };
      const started = await Promise.allSettled([1, 2, 3].map(() => startServerProcess(env)));
      for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
      const failures = started.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
      assert.deepEqual(failures, [], 'every node starts');
      const clients = servers.map((server) => new HttpClient(server.url, 2));
      const { ownerToken, organization } = await bootstrapOrganization(clients[0]!, siteToken, `start${randomBytes(3).toString('hex')}`);
      const created = await clients[1]!.request('POST', `/organizations/${organization}/teams`, ownerToken, { data: { type: 'teams', attributes: { name: 'shared' } } });
      assert.equal(created.status, 200, created.text);
      const shown = await clients[2]!.request('GET', `/teams/${created.body.data.id}`, ownerToken);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.data.attributes.name, 'shared');
      await Promise.all(clients.map((client) => client.close()));
    });
  });
}
