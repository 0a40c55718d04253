import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NAME_MAX_LENGTH, nameKey, nameProblem } from '../../src/core/team-name.js';

const ALLOWED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
const allowedChar = fc.constantFrom(...ALLOWED.split(''));
const validName = fc.array(allowedChar, { minLength: 1, maxLength: NAME_MAX_LENGTH }).map((chars) => chars.join(''));

describe('team name rule', () => {
  it('accepts letters, digits, - and _ from 1 to 255 characters', () => {
    for (const name of ['a', 'Z', '0', '-', '_', 'platform', 'Platform-Team_2', 'a'.repeat(255)]) {
      assert.equal(nameProblem(name), undefined, name);
    }
  });

  it('rejects the empty name', () => {
    assert.equal(nameProblem(''), 'name cannot be empty');
  });

  it('rejects 256 characters and more', () => {
    assert.equal(NAME_MAX_LENGTH, 255);
    assert.match(nameProblem('a'.repeat(256)) ?? '', /at most 255/);
    assert.match(nameProblem('b'.repeat(10_000)) ?? '', /at most 255/);
  });

  it('rejects any other character', () => {
    for (const name of ['a b', 'a.b', 'a/b', 'tëam', 'team!', ' team', 'team\n', 'a+b', 'a:b', '日本', '\u0000', 'a%b']) {
      assert.match(nameProblem(name) ?? '', /letters, numbers, - and _/, JSON.stringify(name));
    }
  });

  it('compares names ignoring case', () => {
    assert.equal(nameKey('Platform'), nameKey('pLATFORM'));
    assert.notEqual(nameKey('platform-a'), nameKey('platform_a'));
  });

  it('property: every name of allowed characters and length 1..255 is valid', () => {
    fc.assert(fc.property(validName, (name) => nameProblem(name) === undefined), { numRuns: 500 });
  });

  it('property: inserting one disallowed character anywhere makes any name invalid', () => {
    const disallowed = fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }).filter((char) => !ALLOWED.includes(char));
    fc.assert(
      fc.property(fc.array(allowedChar, { maxLength: 50 }), disallowed, fc.nat(), (chars, bad, at) => {
        const position = chars.length === 0 ? 0 : at % (chars.length + 1);
        const name = [...chars.slice(0, position), bad, ...chars.slice(position)].join('');
        assert.notEqual(nameProblem(name), undefined, JSON.stringify(name));
      }),
      { numRuns: 500 },
    );
  });

  it('property: over-long names of allowed characters are invalid', () => {
    fc.assert(
      fc.property(fc.array(allowedChar, { minLength: NAME_MAX_LENGTH + 1, maxLength: NAME_MAX_LENGTH + 300 }), (chars) =>
        /at most/.test(nameProblem(chars.join('')) ?? ''),
      ),
      { numRuns: 100 },
    );
  });

  it('property: nameKey is case-insensitive and idempotent on valid names', () => {
    fc.assert(
      fc.property(validName, (name) => nameKey(name.toUpperCase()) === nameKey(name.toLowerCase()) && nameKey(nameKey(name)) === nameKey(name)),
    );
  });
});
