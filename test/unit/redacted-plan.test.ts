import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redact, redactedPlan } from '../../src/runs/redacted-plan.js';

describe("HCP's redacted plan (json-output-redacted)", () => {
  it('replaces every value its sensitivity mark names with null, at any depth, and leaves the rest', () => {
    assert.equal(redact('s3cret', true), null);
    assert.deepEqual(redact({ a: 'x', b: { c: 'y', d: 'z' }, l: ['p', 'q'] }, { b: { d: true }, l: [false, true] }), { a: 'x', b: { c: 'y', d: null }, l: ['p', null] });
    assert.deepEqual(redact({ a: 'x' }, false), { a: 'x' });
    assert.deepEqual(redact(null, { a: true }), null);
  });

  it("keeps the changes terraform's renderer reads, drops the unredacted parts, and gives each resource type a schema", async () => {
    const plan = {
      format_version: '1.2',
      planned_values: { root_module: { resources: [{ values: { password: 'in-planned-values' } }] } },
      prior_state: { values: { password: 'in-prior-state' } },
      configuration: { provider_config: {} },
      variables: { pw: { value: 'in-variables' } },
      resource_changes: [
        {
          address: 'db.main', mode: 'managed', type: 'db', name: 'main', provider_name: 'registry.opentofu.org/acme/db',
          change: { actions: ['update'], before: { password: 'old-secret', size: 1 }, after: { password: 'new-secret', size: 2 }, before_sensitive: { password: true }, after_sensitive: { password: true } },
        },
        { address: 'data.x.y', mode: 'data', type: 'x', name: 'y', provider_name: 'registry.opentofu.org/acme/db', change: { actions: ['read'], before: null, after: { id: 'i' } } },
      ],
      output_changes: { token: { actions: ['create'], before: null, after: 'out-secret', after_sensitive: true }, plain: { actions: ['create'], before: null, after: 'shown' } },
      relevant_attributes: [{ resource: 'db.main', attribute: ['size'] }],
    };
    const text = JSON.stringify(plan);
    // In pieces, split inside a string, as the stored upload is read.
    const redacted = JSON.parse(await redactedPlan([Buffer.from(text.slice(0, 77)), Buffer.from(text.slice(77, 300)), Buffer.from(text.slice(300))]));
    assert.doesNotMatch(JSON.stringify(redacted), /secret|in-planned-values|in-prior-state|in-variables/);
    assert.equal(redacted.plan_format_version, '1.2');
    assert.deepEqual(redacted.resource_changes[0].change.after, { password: null, size: 2 });
    assert.deepEqual(redacted.resource_changes[0].change.after_sensitive, { password: true });
    assert.equal(redacted.output_changes.token.after, null);
    assert.equal(redacted.output_changes.plain.after, 'shown');
    assert.deepEqual(redacted.relevant_attributes, plan.relevant_attributes);
    assert.deepEqual(redacted.resource_drift, []);
    const provider = redacted.provider_schemas['registry.opentofu.org/acme/db'];
    assert.deepEqual(Object.keys(provider.resource_schemas.db.block.attributes).sort(), ['password', 'size']);
    assert.deepEqual(provider.resource_schemas.db.block.attributes.size, { type: 'dynamic', optional: true });
    assert.deepEqual(Object.keys(provider.data_source_schemas.x.block.attributes), ['id']);
  });

  it('a malformed stored plan is an error, not a partial answer', async () => {
    await assert.rejects(redactedPlan([Buffer.from('{"resource_changes": [')]));
  });
});
