/**
 * Issue 25 item 7: what `teamstage pipeline` prints from servers and run task services cannot steer the CI
 * runner that reads the log (workflow commands, logging commands, ANSI escapes), and stays readable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ciSafeText } from '../../src/pipeline/ci-safe-text.js';

const ESC = '\u001b';

/** GitHub's rule (actions/runner ActionCommand.TryParseV2): a command is a line starting with `::` after TrimStart. */
const githubCommand = (line: string) => /^\s*::/.test(line);
/** Azure (`##vso[`), TeamCity (`##teamcity[`) and GitHub's older form (`##[`), anywhere in a line. */
const loggingCommand = (line: string) => /##\w*\[/.test(line);

test('GitHub workflow commands are neutralized at the start of a line, also after indentation, and stay readable', () => {
  assert.equal(ciSafeText('::add-mask::hunter2'), ': :add-mask::hunter2');
  assert.equal(ciSafeText('    ::stop-commands::token'), '    : :stop-commands::token');
  assert.equal(ciSafeText('\t ::error file=main.tf::boom'), '\t : :error file=main.tf::boom');
  assert.equal(ciSafeText('\u00a0::warning::x'), '\u00a0: :warning::x', 'Unicode white space is trimmed by the runner too');
  // Not at the start: not a command, left alone.
  assert.equal(ciSafeText('see a::b and c::d'), 'see a::b and c::d');
});

test('a message cannot start a new line with a command: \\n, \\r\\n and a lone \\r each start a line that is checked', () => {
  for (const text of ['ok\n::add-mask::x', 'ok\r\n::add-mask::x', 'ok\r::add-mask::x']) {
    const safe = ciSafeText(text);
    assert.equal(safe, 'ok\n: :add-mask::x');
    assert.ok(!safe.split('\n').some(githubCommand));
  }
  assert.equal(ciSafeText('a\u2028::add-mask::x'), 'a\uFFFD::add-mask::x', 'no Unicode line separator reaches the log');
});

test('logging commands of Azure Pipelines, TeamCity and the older GitHub form are neutralized anywhere in a line', () => {
  assert.equal(ciSafeText('note ##vso[task.setvariable variable=x]1'), 'note ##vso [task.setvariable variable=x]1');
  assert.equal(ciSafeText('##[add-mask]secret'), '## [add-mask]secret');
  assert.equal(ciSafeText("##teamcity[buildStatus text='x']"), "##teamcity [buildStatus text='x']");
  assert.equal(ciSafeText('issue #12 and ## heading'), 'issue #12 and ## heading', 'ordinary hashes stay');
});

test('ANSI escapes are dropped and the text they wrapped stays; other control characters become U+FFFD', () => {
  assert.equal(ciSafeText(`${ESC}[31mfailed${ESC}[0m: bucket`), 'failed: bucket');
  assert.equal(ciSafeText(`${ESC}[2J${ESC}[1;1Hclean log`), 'clean log', 'no clearing the screen');
  assert.equal(ciSafeText(`${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\`), 'link', 'OSC 8 hyperlinks');
  assert.equal(ciSafeText(`${ESC}]0;title\u0007text`), 'text');
  assert.equal(ciSafeText(`${ESC}[0Ksection_start:1:evil\r${ESC}[0Kx`), 'section_start:1:evil\nx', 'GitLab sections need the escape');
  assert.equal(ciSafeText('\u009b31mc1'), 'c1', 'the 8-bit CSI');
  assert.equal(ciSafeText('bell\u0007 back\u0008 nul\u0000'), 'bell\uFFFD back\uFFFD nul\uFFFD');
  assert.equal(ciSafeText('rtl \u202eevil\u202c'), 'rtl \uFFFDevil\uFFFD');
  assert.equal(ciSafeText('tab\tstays, ünïcødé stays ✓'), 'tab\tstays, ünïcødé stays ✓');
});

test('an escape cannot hide a command from the check: the escape goes first, then the line is checked', () => {
  const safe = ciSafeText(`${ESC}[0m::add-mask::x`);
  assert.ok(!githubCommand(safe), safe);
  assert.ok(!loggingCommand(ciSafeText(`##${ESC}[0mvso[x]`)));
  assert.ok(!loggingCommand(ciSafeText(`#${ESC}[0m#[x]`)));
});

test('property: whatever a task sends, no printed line is a runner command or holds an escape or control character', () => {
  const pieces = fc.constantFrom('::', '##', 'vso', '[', ']', ESC, '[31m', '\u009b', '\r', '\n', ' ', '\t', '\u00a0', 'a', ':', '#', '\u0007', '\u202e', '\\');
  fc.assert(
    fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 30 }), (parts) => {
      const safe = ciSafeText(parts.join(''));
      for (const line of safe.split('\n')) {
        assert.ok(!githubCommand(line), JSON.stringify(line));
        assert.ok(!loggingCommand(line), JSON.stringify(line));
        assert.ok(!/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e]/.test(line), JSON.stringify(line));
      }
      // Idempotent: printing safe text again changes nothing.
      assert.equal(ciSafeText(safe), safe);
    }),
    { numRuns: 2000 },
  );
});
