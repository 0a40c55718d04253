import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/postgres-server.js';

/**
 * `npm start` runs the bundled build (scripts/bundle.mjs joins tsc's output and the dependencies into one
 * file). The HTTP and unit tests run the sources through tsx, so this is the test that the bundle itself
 * works: a real process started the way `npm start` starts it serves the API through every layer (schema
 * validation, access, SQL, serialization, OpenAPI) and stops on SIGTERM. It rebuilds first when the sources
 * are newer than the build, hence the generous time to ready.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN_PATTERN = /"msg":"Site admin token [^"]*","token":"([^"]+)"/;

/** The README's shell blocks this file stands for (test/process/docs-commands.test.ts checks the markers). */
function readmeBlocksRunHere(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/<!-- commands run by: test\/process\/npm-start\.test\.ts -->\n```sh\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
}

describe('npm start (the bundled build, SQLite)', () => {
  it("README.md's commands are the ones run: `npm start` is this start, `npm ci && npm test` is what .ci/run runs", () => {
    const blocks = readmeBlocksRunHere();
    assert.equal(blocks.length, 2, 'the quick start and the walk-through\'s first block');
    const [quickStart = '', walkThrough = ''] = blocks;
    for (const block of blocks) assert.match(block, /^npm ci && npm start\b/);
    assert.match(quickStart, /^npm ci && npm test\b/m);
    const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(packageJson.scripts.start, 'node scripts/start.mjs serve', 'the test below starts what `npm start` runs');
    const ci = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    assert.match(ci, /^npm ci$/m);
    assert.match(ci, /^npm test$/m);
    // The walk-through's block shows the site token's log line as the start below prints it.
    assert.match(walkThrough, /"msg":"Site admin token \(shown once, also saved to data\/site-token\)","token":/);
  });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-start-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves organizations and teams through the bundle, and SIGTERM exits 0', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE_') || key === 'DATABASE_URL') delete env[key];
    Object.assign(env, { HOST: '127.0.0.1', PORT: String(port), TEAMSTAGE_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'teamstage.sqlite')}`, TEAMSTAGE_RATE_LIMIT: '0', LOG_LEVEL: 'warn' });
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs'), 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    try {
      for (;;) {
        assert.equal(child.exitCode, null, `npm start exited early:\n${output}`);
        const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
        if (ready?.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // /readyz answers once the server listens, a moment before the start prints its last lines (the site token,
      // then the banner): they are judged once the banner is there, within a bound.
      for (const deadline = Date.now() + 30_000; !output.includes('"msg":"Teamstage is listening on ') && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The start banner says where the console is.
      assert.match(output, new RegExp(`"msg":"Teamstage is listening on [^"]+\\. Web console: ${base.replace(/[.]/g, '\\.')}/app/"`));
      const token = TOKEN_PATTERN.exec(output)?.[1];
      assert.ok(token, `no site token printed:\n${output}`);
      const api = (method: string, url: string, body?: unknown) =>
        fetch(`${base}/api/v2${url}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const organization = await api('POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'bundled', email: 'ops@example.com' } } });
      assert.equal(organization.status, 201, await organization.clone().text());
      const team = await api('POST', '/organizations/bundled/teams', { data: { type: 'teams', attributes: { name: 'reviewers' } } });
      assert.equal(team.status, 200, await team.clone().text()); // the seed answers a created team with 200
      const created = (await team.json()) as { data: { id: string; attributes: { name: string } } };
      const shown = (await (await api('GET', `/teams/${created.data.id}`)).json()) as { data: { attributes: { name: string } } };
      assert.equal(shown.data.attributes.name, 'reviewers');
      const invalid = await api('POST', '/organizations/bundled/teams', { data: { type: 'teams', attributes: { name: 42 } } });
      assert.equal(invalid.status, 422);
      assert.equal((await fetch(`${base}/api/docs`)).status, 200);
      // The web console the build made (dist/web), found from the bundle's own place.
      const page = await fetch(`${base}/app/`);
      assert.equal(page.status, 200);
      const script = /src="(\/app\/assets\/main-[^"]+\.js)"/.exec(await page.text())?.[1];
      assert.ok(script, 'the console page names its script');
      assert.equal((await fetch(`${base}${script}`)).status, 200);
    } finally {
      child.kill('SIGTERM');
      const code = await exited;
      clearTimeout(killer);
      assert.equal(code, 0, output);
    }
  });
});
