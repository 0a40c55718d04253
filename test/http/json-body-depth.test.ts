/**
 * Issue 25 (the class of item 1 in the API's own bodies): JSON.parse of deeply nested arrays holds the event
 * loop (1 MiB of them: about 0.2 s per request), and no API document nests deeper than a few levels. A body
 * nesting deeper than 64 levels is refused with a 422 before it is parsed, and nothing is created.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../src/http/body-parsers.js';

describe('nesting depth of a JSON body', () => {
  it('counts arrays and objects, not brackets inside strings (escaped quotes included)', () => {
    assert.equal(nestsDeeperThan('{"a":[{"b":[]}]}', 4), false);
    assert.equal(nestsDeeperThan('{"a":[{"b":[[]]}]}', 4), true);
    assert.equal(nestsDeeperThan(`{"a":"${'['.repeat(100)}"}`, 1), false);
    assert.equal(nestsDeeperThan(`{"a":"\\"${'['.repeat(100)}"}`, 1), false);
    assert.equal(nestsDeeperThan(`{"a":"\\\\"}${'['.repeat(3)}`, 2), true);
  });
});

for (const dialect of testDialects()) {
  describe(`deeply nested request bodies (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it(`a body nesting deeper than ${MAX_BODY_DEPTH} levels is a 422 before it is parsed; ${MAX_BODY_DEPTH} levels are parsed`, async () => {
      const org = await createOrganization(ctx);
      const levels = 400 * 1024;
      const deep = `{"data":{"type":"teams","attributes":{"name":"deep","x":${'['.repeat(levels)}${']'.repeat(levels)}}}}`;
      const refused = await org.owner.api.request('POST', `/organizations/${org.name}/teams`, deep, { 'content-type': 'application/vnd.api+json' });
      assertError(refused, 422, new RegExp(`deeper than ${MAX_BODY_DEPTH} levels`));
      // At the limit (the document's object and its data and attributes are 3 of them): parsed, and created.
      const inner = MAX_BODY_DEPTH - 3;
      const fits = `{"data":{"type":"teams","attributes":{"name":"fits","x":${'['.repeat(inner)}${']'.repeat(inner)}}}}`;
      const created = await org.owner.api.request('POST', `/organizations/${org.name}/teams`, fits, { 'content-type': 'application/vnd.api+json' });
      assert.equal(created.status, 200, created.text);
      const names = (await org.owner.api.get(`/organizations/${org.name}/teams`)).body.data.map((team: { attributes: { name: string } }) => team.attributes.name);
      assert.ok(names.includes('fits') && !names.includes('deep'), names.join(', '));
    });
  });
}
