/**
 * The comparison behind test/realclients/go-tfe.test.ts: a changed, missing or unlisted result is a
 * difference, a reason is inherited from the parent test, and `go test -v` lines are read at any depth.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareResults, missingReasons, parseExpected, parseGoTestOutput, renderExpected } from '../realclients/expected-results.js';

const OUTPUT = `=== RUN   TestTeamsList
--- PASS: TestTeamsList (0.10s)
    --- PASS: TestTeamsList/with_options (0.01s)
--- FAIL: TestTeamsUpdate (0.20s)
    --- SKIP: TestTeamsUpdate/beta (0.00s)
        --- FAIL: TestTeamsUpdate/beta/deeper (0.00s)
panic: runtime error
`;

describe('real client results', () => {
  it('reads PASS, FAIL and SKIP lines at every depth', () => {
    assert.deepEqual(
      [...parseGoTestOutput(OUTPUT)],
      [['TestTeamsList', 'pass'], ['TestTeamsList/with_options', 'pass'], ['TestTeamsUpdate', 'fail'], ['TestTeamsUpdate/beta', 'skip'], ['TestTeamsUpdate/beta/deeper', 'fail']],
    );
  });

  it('a result that changed, a test that did not run and one not in the file are each a difference', () => {
    const expected = parseExpected(`# header
pass   TestTeamsList
fail   TestTeamsList/with_options  # a reason
sqlite=fail,postgres=pass TestTeamsUpdate  # differs per database
pass   TestGone
`);
    const observed = parseGoTestOutput(OUTPUT);
    assert.deepEqual(compareResults(expected, observed, 'sqlite'), [
      'TestTeamsList/with_options: expected fail, got pass',
      'TestGone: expected pass, did not run',
      'TestTeamsUpdate/beta: skip, not in the results file (add it with its reason)',
      'TestTeamsUpdate/beta/deeper: fail, not in the results file (add it with its reason)',
    ]);
    assert.ok(compareResults(expected, observed, 'postgres').includes('TestTeamsUpdate: expected pass, got fail'));
  });

  it('every result but pass needs a reason, its own or an ancestor\'s', () => {
    const expected = parseExpected(`fail TestA  # why
fail TestA/sub
skip TestB/sub
pass TestC
`);
    assert.deepEqual(missingReasons(expected), ['TestB/sub']);
  });

  it('the update mode keeps reasons and writes a per-database result only where they differ', () => {
    const previous = parseExpected('fail TestA  # why\n');
    const text = renderExpected('# h', previous, {
      sqlite: new Map([['TestA', 'fail'], ['TestB', 'pass']]),
      postgres: new Map([['TestA', 'fail'], ['TestB', 'fail']]),
    });
    assert.equal(text, '# h\n\nfail   TestA  # why\nsqlite=pass,postgres=fail TestB\n');
  });

  it('a malformed line or an unknown result is refused', () => {
    assert.throws(() => parseExpected('passed TestA\n'), /unknown result/);
    assert.throws(() => parseExpected('pass\n'), /expected/);
  });
});
