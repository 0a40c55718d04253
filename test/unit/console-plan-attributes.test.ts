/**
 * The structured plan's model (src/web/runs/plan-attributes-model.ts): attribute rows before → after, what
 * forces a replacement, sensitive values masked (also inside lists and past the deepest level), unknown ones
 * known after apply, an update listing only what changed (a changed sensitive attribute included, masked).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributeRows, valueRow } from '../../src/web/runs/plan-attributes-model.js';

test('an update lists what changed, masks what is sensitive, flags what forces the replacement', () => {
  const rows = attributeRows({
    actions: ['delete', 'create'],
    before: { id: 'a1', name: 'old', password: 'p1', tags: { env: 'dev', team: 'x' }, ports: [80, 443], keys: ['k1', 'k2'] },
    after: { name: 'new', password: 'p2', tags: { env: 'prod', team: 'x' }, ports: [80, 443], keys: ['k1', 'k3'] },
    after_unknown: { id: true },
    before_sensitive: { password: true, keys: [false, true] },
    after_sensitive: { password: true, keys: [false, true] },
    replace_paths: [['name']],
  });
  const text = JSON.stringify(rows);
  assert.doesNotMatch(text, /p1|p2|k2|k3/, 'nothing sensitive in the rows');
  assert.deepEqual(
    rows.map((row) => [row.path, row.before.kind === 'value' ? row.before.text : row.before.kind, row.after.kind === 'value' ? row.after.text : row.after.kind, row.forcesReplacement]),
    [
      ['id', '"a1"', 'unknown', false],
      ['keys.1', 'sensitive', 'sensitive', false],
      ['name', '"old"', '"new"', true],
      ['password', 'sensitive', 'sensitive', false],
      ['tags.env', '"dev"', '"prod"', false],
    ],
  );
});

test('a create lists every attribute; an output is one row, masked when sensitive, unknown when so', () => {
  const rows = attributeRows({ actions: ['create'], before: null, after: { a: 1, b: null, list: ['x', 'y'] }, after_unknown: { c: true }, after_sensitive: {} });
  assert.deepEqual(rows.map((row) => row.path), ['a', 'c', 'list']);
  assert.deepEqual(valueRow({ actions: ['create'], before: null, after: 'bar', after_sensitive: true }).after, { kind: 'sensitive' });
  assert.deepEqual(valueRow({ actions: ['create'], before: null, after_unknown: true }).after, { kind: 'unknown' });
});
