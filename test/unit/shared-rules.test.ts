/**
 * The rules the server shares with the console and the pipeline client (statuses, the stage order, the
 * organization-access rules, the exit codes) have one home, src/shared. This test reads the code (comments
 * aside) of every other file under src/ and fails on a copy: a list literal (an array, a Set) that holds all
 * the members of a shared list, a rule table (`requires: [`), an implication pair or the exit table.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as exitCodes from '../../src/shared/exit-codes.js';
import * as accessRules from '../../src/shared/organization-access-rules.js';
import * as runStatuses from '../../src/shared/run-statuses.js';
import * as stageOrder from '../../src/shared/stage-order.js';
import * as stageStatuses from '../../src/shared/task-stage-statuses.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every exported list of three or more strings of the shared modules, by name. */
function sharedLists(): Array<{ name: string; members: string[] }> {
  const modules = { exitCodes, accessRules, runStatuses, stageOrder, stageStatuses };
  return Object.entries(modules).flatMap(([module, exports]) =>
    Object.entries(exports as Record<string, unknown>).flatMap(([name, value]) => {
      const members = Array.isArray(value) || value instanceof Set ? [...value] : [];
      return members.length >= 3 && members.every((member) => typeof member === 'string') ? [{ name: `${module}.${name}`, members }] : [];
    }),
  );
}

/**
 * The code of a source file with its comments blanked out (newlines kept, so lines still count), so a
 * comment that names the stages in order is not taken for a copy. Strings and templates are kept.
 */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end < 0 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, ' ');
      i += comment.length - 1;
    } else if (char === "'" || char === '"' || char === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== char) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * The list literals of a file (`[...]`, so arrays and `new Set([...])`) as the quoted strings they hold, with
 * their lines. A copy of a shared list holds all its members and at most one more (a list that merely
 * mentions some of them among many others, such as the run statuses one step reacts to, is its own rule).
 */
function listLiterals(code: string): Array<{ strings: Set<string>; line: number }> {
  return [...code.matchAll(/\[([^[\]]*)\]/g)].map((match) => ({
    strings: new Set([...match[1]!.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((quoted) => quoted[1] ?? quoted[2]!)),
    line: code.slice(0, match.index).split('\n').length,
  }));
}

function isCopy(list: Set<string>, members: string[]): boolean {
  return members.every((member) => list.has(member)) && list.size <= members.length + 1;
}

/** Copies of the shared tables that are not lists of names. */
const TABLE_COPIES: Array<{ name: string; pattern: RegExp }> = [
  { name: 'accessRules.ACCESS_RULES', pattern: /\brequires\s*:\s*\[/ },
  ...accessRules.ACCESS_IMPLICATIONS.map(([source, implied]) => ({
    name: 'accessRules.ACCESS_IMPLICATIONS',
    pattern: new RegExp(`\\[\\s*['"]${source}['"]\\s*,\\s*['"]${implied}['"]\\s*\\]`),
  })),
  ...Object.entries(exitCodes.EXIT).map(([name, code]) => ({ name: 'exitCodes.EXIT', pattern: new RegExp(`\\b${name}\\s*:\\s*${code}\\b`) })),
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mjs|js)$/.test(entry.name) ? [full] : [];
  });
}

/** Every copy of a shared rule in the files of `dir` (relative to the repository), as "file:line name". */
function copiesUnder(dir: string): string[] {
  const lists = sharedLists();
  return sourceFiles(path.join(ROOT, dir)).flatMap((file) => {
    const relative = path.relative(ROOT, file);
    const text = withoutComments(fs.readFileSync(file, 'utf8'));
    const literals = listLiterals(text);
    const listCopies = lists.flatMap(({ name, members }) =>
      literals.filter((literal) => isCopy(literal.strings, members)).map((literal) => `${relative}:${literal.line} ${name}`),
    );
    const tableCopies = TABLE_COPIES.flatMap(({ name, pattern }) => {
      const index = text.search(pattern);
      return index < 0 ? [] : [`${relative}:${text.slice(0, index).split('\n').length} ${name}`];
    });
    return [...listCopies, ...tableCopies];
  });
}

describe('the rules shared with the console and the pipeline client have one home (src/shared)', () => {
  it('the shared modules are what the check looks for (their lists, tables and exit codes)', () => {
    const names = sharedLists().map((list) => list.name);
    for (const name of ['stageOrder.TASK_STAGE_ORDER', 'runStatuses.TERMINAL_RUN_STATUSES', 'stageStatuses.FINAL_STAGE_STATUSES', 'accessRules.ORGANIZATION_ACCESS_KEYS']) {
      assert.ok(names.includes(name), `${name} is not among ${names.join(', ')}`);
    }
  });

  it('finds a copy when there is one (the check can fail)', () => {
    const probe = copiesUnder('test/fixtures/shared-rule-copies');
    for (const name of ['stageOrder.TASK_STAGE_ORDER', 'runStatuses.UNSUCCESSFUL_RUN_STATUSES', 'accessRules.ACCESS_RULES', 'accessRules.ACCESS_IMPLICATIONS', 'exitCodes.EXIT']) {
      assert.ok(probe.some((copy) => copy.endsWith(` ${name}`)), `the probe's copy of ${name} was not found: ${probe.join('; ')}`);
    }
  });

  it('no file under src/ outside src/shared copies one', () => {
    const copies = copiesUnder('src').filter((copy) => !copy.startsWith(`src${path.sep}shared${path.sep}`));
    assert.deepEqual(copies, [], 'import the rule from src/shared instead of spelling it again');
  });
});
