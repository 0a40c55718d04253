/**
 * Issue 4 security checks against a real server process logging at `trace`: tokens are stored only as
 * hashes, no secret ever reaches the logs, the rate limit holds per principal, the size limit holds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

describe('secrets and limits (real process, trace logging)', { timeout: 120_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-secrets-'));
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores tokens hashed, logs no secret, limits each principal separately and rejects oversized bodies', async () => {
    const file = path.join(dir, 'db.sqlite');
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess({ DATABASE_URL: `sqlite:${file}`, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '30', LOG_LEVEL: 'trace' });
    const client = new HttpClient(server.url, 10);
    const secrets: string[] = [siteToken];
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `sec${randomBytes(3).toString('hex')}`);
    secrets.push(ownerToken);

    const team = await client.request('POST', `/organizations/${organization}/teams`, ownerToken, { data: { type: 'teams', attributes: { name: 'sec-team' } } });
    assert.equal(team.status, 200);
    const legacy = await client.request('POST', `/teams/${team.body.data.id}/authentication-token`, ownerToken, {});
    const described = await client.request('POST', `/teams/${team.body.data.id}/authentication-tokens`, ownerToken, {
      data: { type: 'authentication-tokens', attributes: { description: 'ci' } },
    });
    const orgToken = await client.request('POST', `/organizations/${organization}/authentication-token`, ownerToken, {});
    for (const created of [legacy, described, orgToken]) {
      assert.equal(created.status, 201, created.text);
      secrets.push(created.body.data.attributes.token);
    }
    // Every secret is used once, so it passes through authentication (and any logging of requests).
    for (const secret of secrets) assert.equal((await client.request('GET', '/account/details', secret)).status, 200);
    // Reading a token back never shows the secret again.
    const listed = await client.request('GET', `/teams/${team.body.data.id}/authentication-tokens`, ownerToken);
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.every((token: any) => token.attributes.token === undefined));

    // Rate limit: 30 per second per principal. One principal bursts past it; another is unaffected.
    const burst = await Promise.all(Array.from({ length: 45 }, () => client.request('GET', '/account/details', secrets[2])));
    const limited = burst.filter((response) => response.status === 429);
    assert.ok(limited.length >= 10, `${limited.length} of 45 burst requests limited`);
    assert.equal(limited[0]!.body.errors[0].title, 'too many requests');
    assert.equal((await client.request('GET', '/account/details', secrets[3])).status, 200, 'another principal is not limited');

    // Size limit: over 1 MiB is 413, and nothing is created.
    const huge = JSON.stringify({ data: { type: 'teams', attributes: { name: 'huge', description: 'x'.repeat(1024 * 1024) } } });
    const tooLarge = await client.request('POST', `/organizations/${organization}/teams`, ownerToken, huge);
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.body.errors[0].title, 'payload too large');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const hugeTeam = await client.request('GET', `/organizations/${organization}/teams?filter%5Bnames%5D=huge`, ownerToken);
    assert.equal(hugeTeam.body.data.length, 0);

    await client.close();
    await server.kill('SIGTERM');
    const logs = server.output();
    server = undefined;
    assert.ok(logs.length > 1000, 'trace logging produced output to search');
    for (const secret of secrets) assert.ok(!logs.includes(secret), 'a token appeared in the logs');

    const db = new SQLite(file, { readonly: true });
    const dump = JSON.stringify(db.prepare('select * from tokens').all());
    db.close();
    for (const secret of secrets) assert.ok(!dump.includes(secret), 'a token is stored in plain text');
    console.log(`${secrets.length} tokens checked: none in ${logs.length} bytes of trace logs, none in plain text in the database; ${limited.length}/45 burst requests got 429`);
  });
});
