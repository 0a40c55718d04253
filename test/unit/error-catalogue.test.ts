/**
 * Every error the API answers is a named member of the catalogue (src/core/errors.ts `Errors`): its status
 * (with its fixed title), and its detail as a template with the pointer or parameter it names. Nothing else
 * in the server constructs an error with free text or builds an error document by hand; the compiler
 * keeps the first (the error kinds are private to the catalogue), this test keeps both and says where.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApiError, Errors } from '../../src/core/errors.js';
import { ERROR_TITLES } from '../../src/http/error-document.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The clients in src/ have their own errors (what they print); the catalogue is the server's. */
const CLIENTS = ['src/web/', 'src/pipeline/'];
const CATALOGUE = 'src/core/errors.ts';
/** The one place an error document is assembled from a catalogue error. */
const RENDERER = 'src/http/error-document.ts';

const ERROR_KINDS = ['ApiError', 'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'Conflict', 'PayloadTooLarge', 'InvalidAttribute', 'Unprocessable', 'StatusError'];
const FREE_TEXT = [
  { what: 'an error constructed outside the catalogue', pattern: new RegExp(`new (${ERROR_KINDS.join('|')})\\(`) },
  { what: 'an error object built by hand (status and title)', pattern: /\btitle\s*:\s*ERROR_TITLES\b|\bstatus\s*:\s*['"]\d{3}['"]/ },
];

const SAMPLE_ARGUMENTS: Record<string, unknown[]> = {
  refusedBeforeRouting: [400, 'bad URL encoding'],
  invalidExecutionMode: [['remote', 'agent', 'local']],
  invalidRunListFilter: ['filter[status_group]', 'done', ['non_final', 'final', 'discardable']],
  policyEnforcementLevelRequired: [['advisory', 'mandatory']],
  invalidPolicyEnforcementLevel: ['/data/attributes/enforcement-level', 'opa', ['advisory', 'mandatory'], 'soft'],
};

/** What a member answers given its sample arguments (most members take names and counts; some a status or a list). */
function sampleOf(name: string, member: (...args: unknown[]) => unknown): unknown {
  return member(...sampleArguments(name, member));
}

function sampleArguments(name: string, member: (...args: unknown[]) => unknown): unknown[] {
  return SAMPLE_ARGUMENTS[name] ?? Array.from({ length: member.length }, (_, index) => (index % 2 === 0 ? `arg${index}` : 7));
}

function serverFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return CLIENTS.includes(`${relative}/`) ? [] : serverFiles(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

/** Where a server file constructs an error with free text: "file:line what". */
function freeTextErrors(files: string[]): string[] {
  return files.flatMap((file) =>
    fs
      .readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => FREE_TEXT.filter(({ pattern }) => pattern.test(line)).map(({ what }) => `${file}:${index + 1} ${what}`)),
  );
}

describe('the error catalogue', () => {
  it('no server file outside the catalogue constructs an error with free text or builds an error document by hand', () => {
    const files = serverFiles('src').filter((file) => file !== CATALOGUE && file !== RENDERER);
    assert.ok(files.length > 100, `only ${files.length} server files read`);
    assert.deepEqual(freeTextErrors(files), [], 'add a named member to Errors in src/core/errors.ts and throw that');
  });

  it('the check finds free text where there is some', () => {
    const probe = 'test/fixtures/free-text-errors/free-text.ts';
    const found = freeTextErrors([probe]);
    assert.deepEqual(
      found.map((line) => line.replace(/^.*:(\d+) /, '$1 ')),
      ['4 an error constructed outside the catalogue', '5 an error object built by hand (status and title)'],
    );
  });

  it('every member is an error of a status with a title, its detail filled in from its arguments', () => {
    const members = Object.entries(Errors) as Array<[string, (...args: unknown[]) => unknown]>;
    assert.ok(members.length > 100, `${members.length} members`);
    for (const [name, member] of members) {
      const error = sampleOf(name, member);
      assert.ok(error instanceof ApiError, `${name} is not an ApiError`);
      assert.ok(ERROR_TITLES[error.status], `${name}: status ${error.status} has no title`);
      assert.ok(error.message.length > 0 && !error.message.includes('undefined'), `${name}: detail '${error.message}'`);
    }
  });

  it('each error has one member: no two members give the same status and the same fixed detail', () => {
    const byAnswer = new Map<string, string[]>();
    for (const [name, member] of Object.entries(Errors) as Array<[string, (...args: unknown[]) => unknown]>) {
      const error = sampleOf(name, member) as ApiError;
      // A detail that is (or holds) an argument is a template, not a fixed answer.
      if (sampleArguments(name, member).some((arg) => typeof arg !== 'object' && error.message.includes(String(arg)))) continue;
      const answer = JSON.stringify([error.status, error.message]);
      byAnswer.set(answer, [...(byAnswer.get(answer) ?? []), name]);
    }
    assert.deepEqual([...byAnswer.values()].filter((names) => names.length > 1), []);
  });

  it('the kinds of error are the catalogue\'s alone: only src/core/errors.ts imports src/core/error-kinds.ts', () => {
    const importers = serverFiles('src').filter((file) => /from ['"][./]+(core\/)?error-kinds\.js['"]/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    assert.deepEqual(importers, [CATALOGUE]);
  });
});
