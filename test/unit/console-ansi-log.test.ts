/**
 * The console's ANSI renderer (src/web/runs/ansi-log.ts): terraform's colours and bold become styled text
 * segments, every other escape sequence disappears, and the text itself is kept byte for byte.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAnsi } from '../../src/web/runs/ansi-log.js';

const plain = { color: null, bold: false, underline: false };

test('terraform plan colours: bold, green, reset', () => {
  const log = '\x1b[0m\x1b[1mTerraform will perform the following actions:\x1b[0m\n\n  \x1b[32m+\x1b[0m create\n';
  assert.deepEqual(parseAnsi(log), [
    { ...plain, bold: true, text: 'Terraform will perform the following actions:' },
    { ...plain, text: '\n\n  ' },
    { ...plain, color: 'green', text: '+' },
    { ...plain, text: ' create\n' },
  ]);
});

test('codes combine in one sequence, bright colours map to their colour, 22/24/39 undo one attribute', () => {
  assert.deepEqual(parseAnsi('\x1b[1;4;91mA\x1b[22mB\x1b[24;39mC'), [
    { text: 'A', color: 'red', bold: true, underline: true },
    { text: 'B', color: 'red', bold: false, underline: true },
    { ...plain, text: 'C' },
  ]);
});

test('256-colour and true-colour arguments are skipped, not read as codes', () => {
  // 38;5;1 must not turn on bold (1); 38;2;4;4;4 must not turn on underline (4).
  assert.deepEqual(parseAnsi('\x1b[38;5;1mA\x1b[0;38;2;4;4;4mB'), [{ ...plain, text: 'AB' }]);
});

test('other escapes (cursor moves, erase line, window titles, a stray ESC) vanish; text and markup-looking text stay as they are', () => {
  const log = '\x1b[2K\x1b[1Gline <b>&amp;</b>\x1b]0;title\x07 end\x1b';
  assert.deepEqual(parseAnsi(log), [{ ...plain, text: 'line <b>&amp;</b> end' }]);
  assert.deepEqual(parseAnsi('no escapes at all'), [{ ...plain, text: 'no escapes at all' }]);
  assert.deepEqual(parseAnsi(''), []);
});

test('the STX and ETX framing every HCP log (and other non-text control bytes) vanish; tab, line feed and carriage return stay', () => {
  const log = '\x02\x1b[1mInitializing\x1b[0m\tplugins\r\n\x00done\x7f\n\x03';
  assert.deepEqual(parseAnsi(log), [
    { ...plain, bold: true, text: 'Initializing' },
    { ...plain, text: '\tplugins\r\ndone\n' },
  ]);
});
