/**
 * The README is a front door and the reference lives in docs/: every page is linked from the README, every
 * relative link in the project's Markdown reaches a file (and, for a `#anchor` into Markdown, a heading of it),
 * and every reference from code, scripts and examples to a section ("docs/operations.md, \"Backups\"") names a
 * page that has that heading. A commit once deleted three sections while the pointers stayed; a page renamed or
 * a heading reworded now fails here instead of leaving readers at a dead link.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README_MAX_LINES = 250;

function filesUnder(dir: string, accept: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'fixtures'].includes(entry.name) ? [] : filesUnder(full, accept);
    return accept(full) ? [full] : [];
  });
}

/** Lines of Markdown outside code fences. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

export function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6} (.+?)\s*$/.exec(line);
    if (heading) headings.add(heading[1]!);
  }
  return headings;
}

/** Relative links of Markdown prose: `[label](target)`, web addresses and mail left out. */
export function relativeLinksIn(markdown: string): string[] {
  return prose(markdown).flatMap((line) =>
    [...line.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^(https?:|mailto:)/.test(target)),
  );
}

/** How code, scripts and examples refer to a section: `docs/operations.md, "Backups"` (also `README.md "X"`). */
const CODE_REFERENCE = /\b((?:docs\/)?[\w.-]+\.md),? "([A-Z][^"\n]{1,60})"/g;
/** A section of the README named without `.md`: `(docs/tokens.md, "Tokens")`, `README's "X"`. */
const README_REFERENCE = /\bREADME(?:,|'s| section)? "([A-Z][^"\n]{1,60})"/g;
/** The old form, a section named in quotes without its page, which this layout replaced by links. */
const BARE_REFERENCE = /(?:\b[Ss]ee|\bas in|\bREADME,|\bREADME's|\bREADME section) "([A-Z][^"\n]{1,60})"/g;

const markdownFiles = () => [
  path.join(ROOT, 'README.md'),
  path.join(ROOT, 'RELIABILITY.md'),
  path.join(ROOT, 'BENCHMARKS.md'),
  ...filesUnder(path.join(ROOT, 'docs'), (file) => file.endsWith('.md')),
  ...filesUnder(path.join(ROOT, 'examples'), (file) => file.endsWith('.md')),
  ...filesUnder(path.join(ROOT, 'src'), (file) => file.endsWith('.md')),
];
const docPages = () => filesUnder(path.join(ROOT, 'docs'), (file) => file.endsWith('.md'));

test('the finders see links, anchors and references as the project writes them', () => {
  assert.equal(anchorOf('Policies (OPA)'), 'policies-opa');
  assert.equal(anchorOf('The record of a run, and more than one approver'), 'the-record-of-a-run-and-more-than-one-approver');
  assert.deepEqual(relativeLinksIn('[a](docs/x.md#y) [b](https://e.example)\n```\n[c](no.md)\n```'), ['docs/x.md#y']);
  assert.deepEqual([...headingsOf('# A\n```sh\n# not a heading\n```\n### Backups\n')], ['A', 'Backups']);
  assert.deepEqual([...'use pg_dump (docs/operations.md, "Backups"); README.md "Tokens"'.matchAll(CODE_REFERENCE)].map((m) => [m[1], m[2]]), [
    ['docs/operations.md', 'Backups'],
    ['README.md', 'Tokens'],
  ]);
});

test(`the README is a front door: at most ${README_MAX_LINES} lines, and it links every page of docs/`, () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; the reference belongs in docs/`);
  const linked = new Set(relativeLinksIn(readme).map((target) => path.normalize(target.split('#')[0]!)));
  const unlinked = docPages()
    .map((page) => path.relative(ROOT, page))
    .filter((page) => !linked.has(page));
  assert.deepEqual(unlinked, [], 'pages of docs/ the README does not link');
});

test('every relative link in the Markdown reaches its file, and its anchor a heading there', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    for (const target of relativeLinksIn(fs.readFileSync(file, 'utf8'))) {
      checked += 1;
      const [where, anchor] = target.split('#') as [string, string | undefined];
      const resolved = where === '' ? file : path.resolve(path.dirname(file), decodeURI(where));
      const from = path.relative(ROOT, file);
      if (!fs.existsSync(resolved)) {
        broken.push(`${from}: ${target} (no such file)`);
      } else if (anchor && resolved.endsWith('.md')) {
        const anchors = new Set([...headingsOf(fs.readFileSync(resolved, 'utf8'))].map(anchorOf));
        if (!anchors.has(anchor)) broken.push(`${from}: ${target} (no such heading)`);
      }
    }
  }
  assert.ok(checked >= 50, `expected the project's links to be found, found ${checked}`);
  assert.deepEqual(broken, [], 'broken links');
});

test('references to a section name a page that has it, and Markdown links instead of quoting section names', () => {
  const code = (file: string) => /\.(ts|tsx|mjs|cjs|sh|yml|yaml|md)$/.test(file);
  const missing: string[] = [];
  let found = 0;
  const rootFiles = fs.readdirSync(ROOT).filter((name) => /\.(cjs|mjs|ts)$/.test(name)).map((name) => path.join(ROOT, name));
  for (const file of [...markdownFiles(), ...rootFiles, ...['src', 'scripts', 'examples', 'test', 'container'].flatMap((dir) => filesUnder(path.join(ROOT, dir), code))]) {
    if (file === import.meta.filename) continue;
    const text = fs.readFileSync(file, 'utf8');
    const from = path.relative(ROOT, file);
    for (const [, page, section] of text.matchAll(CODE_REFERENCE)) {
      const target = fs.existsSync(path.join(ROOT, page!)) ? path.join(ROOT, page!) : path.resolve(path.dirname(file), page!);
      found += 1;
      if (!fs.existsSync(target)) missing.push(`${from}: ${page}, "${section}" (no such page)`);
      else if (!headingsOf(fs.readFileSync(target, 'utf8')).has(section!)) missing.push(`${from}: ${page}, "${section}" (no such heading)`);
    }
    const readmeHeadings = headingsOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    for (const [, section] of text.matchAll(README_REFERENCE)) {
      found += 1;
      if (!readmeHeadings.has(section!)) missing.push(`${from}: README "${section}" (the README has no such section: name its page in docs/)`);
    }
    if (file.endsWith('.md') && !['BENCHMARKS.md', 'RELIABILITY.md'].includes(from)) {
      for (const [quoted] of prose(text).join('\n').matchAll(BARE_REFERENCE)) missing.push(`${from}: ${quoted} (make it a link to its page)`);
    }
  }
  assert.ok(found >= 5, `expected the project's references to be found, found ${found}`);
  assert.deepEqual(missing, [], 'references that lead nowhere');
});

test('the sections an operator needs exist', () => {
  const operations = headingsOf(fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8'));
  for (const section of ['Operating it', 'Backups', 'Upgrades', 'Monitoring', 'Running several nodes', 'Run it in a container', 'HTTPS']) {
    assert.ok(operations.has(section), `docs/operations.md lacks the section "${section}"`);
  }
  assert.ok(headingsOf(fs.readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8')).size > 0, 'docs/security.md has sections');
});
