/**
 * Issue 40: the example alert rules (examples/prometheus/teamstage-alerts.yaml) name only metrics that
 * /metrics serves, so a renamed metric breaks this test rather than silently muting an alert.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/prometheus/teamstage-alerts.yaml');

describe('example alert rules', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp('sqlite');
  });
  after(async () => ctx.close());

  it('parse, cover failing jobs, the oldest due job and delivery errors, and name only served metrics', async () => {
    const rules = (parse(fs.readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules);
    const names = new Set(rules.flatMap((rule) => [...rule.expr.matchAll(/\bteamstage_[a-z_]+/g)].map((match) => match[0])));
    for (const wanted of ['teamstage_jobs_failing', 'teamstage_job_oldest_due_age_seconds', 'teamstage_task_deliveries_total']) assert.ok(names.has(wanted), wanted);
    const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    const served = new Set([...metrics.body.matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1]));
    for (const name of names) assert.ok(served.has(name), `${name} is not served by /metrics`);
  });
});
