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
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as exitCodes from '../../src/shared/exit-codes.js';
import * as accessRules from '../../src/shared/organization-access-rules.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every module of src/shared, by file name (`run-statuses`), so a new one is checked without naming it here. */
const SHARED_MODULES: Record<string, unknown> = Object.fromEntries(
  await Promise.all(
    fs.readdirSync(path.join(ROOT, 'src/shared')).filter((file) => file.endsWith('.ts')).map(async (file) =>
      [file.replace(/\.ts$/, ''), await import(pathToFileURL(path.join(ROOT, 'src/shared', file)).href)] as const,
    ),
  ),
);

/** Every exported list of two or more strings of the shared modules, by name (`run-statuses.RUN_STATUSES`). */
function sharedLists(): Array<{ name: string; members: string[] }> {
  return Object.entries(SHARED_MODULES).flatMap(([module, exports]) =>
    Object.entries(exports as Record<string, unknown>).flatMap(([name, value]) => {
      const members = Array.isArray(value) || value instanceof Set ? [...value] : [];
      return members.length >= 2 && members.every((member) => typeof member === 'string') ? [{ name: `${module}.${name}`, members }] : [];
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
 * mentions some of them among many others, such as the run statuses one step reacts to, is its own rule); a
 * copy of a list of two holds exactly its two (a third member makes it another rule that happens to contain them).
 */
function listLiterals(code: string): Array<{ strings: Set<string>; line: number }> {
  return [...code.matchAll(/\[([^[\]]*)\]/g)].map((match) => ({
    strings: new Set([...match[1]!.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((quoted) => quoted[1] ?? quoted[2]!)),
    line: code.slice(0, match.index).split('\n').length,
  }));
}

function isCopy(list: Set<string>, members: string[]): boolean {
  const extra = members.length === 2 ? 0 : 1;
  return members.every((member) => list.has(member)) && list.size <= members.length + extra;
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
    for (const name of [
      'stage-order.TASK_STAGE_ORDER', 'run-statuses.TERMINAL_RUN_STATUSES', 'task-stage-statuses.FINAL_STAGE_STATUSES', 'organization-access-rules.ORGANIZATION_ACCESS_KEYS',
      'enforcement-levels.ENFORCEMENT_LEVELS', 'task-stage-statuses.OPEN_RESULT_STATUSES', 'policy-evaluation-statuses.POLICY_EVALUATION_STATUSES',
    ]) {
      assert.ok(names.includes(name), `${name} is not among ${names.join(', ')}`);
    }
  });

  it('finds a copy when there is one (the check can fail)', () => {
    const probe = copiesUnder('test/fixtures/shared-rule-copies');
    for (const name of [
      'stage-order.TASK_STAGE_ORDER', 'run-statuses.UNSUCCESSFUL_RUN_STATUSES', 'enforcement-levels.ENFORCEMENT_LEVELS', 'accessRules.ACCESS_RULES', 'accessRules.ACCESS_IMPLICATIONS', 'exitCodes.EXIT',
    ]) {
      assert.ok(probe.some((copy) => copy.endsWith(` ${name}`)), `the probe's copy of ${name} was not found: ${probe.join('; ')}`);
    }
  });

  it('no file under src/ outside src/shared copies one', () => {
    const copies = copiesUnder('src').filter((copy) => !copy.startsWith(`src${path.sep}shared${path.sep}`));
    assert.deepEqual(copies, [], 'import the rule from src/shared instead of spelling it again');
  });
});
