/**
 * The committed expected results of a real client's own test suite (go-tfe's integration tests) against
 * Teamstage, and the comparison that fails CI when one changes. The file has one line per test or subtest:
 *
 *   pass  TestTeamsList
 *   fail  TestTeamsCreate  # why it fails: the seed's name rule, an endpoint out of scope, …
 *   skip  TestTeamsCreate/with_sso  # skipped by go-tfe itself (enterprise only, …)
 *
 * A result may differ per database (`sqlite=pass,postgres=fail`). Every result other than `pass` needs a
 * reason, on its own line or on an ancestor's (a subtest inherits its parent's).
 */
import fs from 'node:fs';

export type Outcome = 'pass' | 'fail' | 'skip';
export type Observed = Map<string, Outcome>;

export interface ExpectedLine {
  name: string;
  /** The result per database name, or for every database under '*'. */
  result: Record<string, Outcome>;
  why: string;
}

const OUTCOMES = new Set(['pass', 'fail', 'skip']);

/** Reads `go test -v` output: `--- PASS: TestX/sub (0.01s)` lines, at any indentation. */
export function parseGoTestOutput(output: string): Observed {
  const observed: Observed = new Map();
  for (const match of output.matchAll(/^\s*--- (PASS|FAIL|SKIP): (\S+) \(/gm)) {
    observed.set(match[2]!, match[1]!.toLowerCase() as Outcome);
  }
  return observed;
}

export function parseExpected(text: string): ExpectedLine[] {
  const lines: ExpectedLine[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+)\s+(\S+)(?:\s+#\s*(.*))?$/.exec(line);
    if (!match) throw new Error(`line ${index + 1}: expected "<result> <test> [# why]": ${raw}`);
    const result: Record<string, Outcome> = {};
    for (const part of match[1]!.split(',')) {
      const [left, right] = part.includes('=') ? part.split('=') : ['*', part];
      if (!OUTCOMES.has(right!)) throw new Error(`line ${index + 1}: unknown result ${right}`);
      result[left!] = right as Outcome;
    }
    lines.push({ name: match[2]!, result, why: match[3]?.trim() ?? '' });
  }
  return lines;
}

export function expectedOutcome(line: ExpectedLine, database: string): Outcome {
  return line.result[database] ?? line.result['*']!;
}

/** The reason that covers a test: its own, else its nearest ancestor's. */
export function reasonFor(name: string, byName: Map<string, ExpectedLine>): string {
  for (let current = name; ; current = current.slice(0, current.lastIndexOf('/'))) {
    const why = byName.get(current)?.why;
    if (why) return why;
    if (!current.includes('/')) return '';
  }
}

/** Every difference between what ran on `database` and the file, as readable lines (empty: none). */
export function compareResults(expected: ExpectedLine[], observed: Observed, database: string): string[] {
  const byName = new Map(expected.map((line) => [line.name, line]));
  const differences: string[] = [];
  for (const line of expected) {
    const want = expectedOutcome(line, database);
    const got = observed.get(line.name);
    if (got === undefined) differences.push(`${line.name}: expected ${want}, did not run`);
    else if (got !== want) differences.push(`${line.name}: expected ${want}, got ${got}`);
  }
  for (const [name, got] of observed) {
    if (!byName.has(name)) differences.push(`${name}: ${got}, not in the results file (add it with its reason)`);
  }
  return differences;
}

/** Lines whose non-pass result has no reason anywhere up the test tree. */
export function missingReasons(expected: ExpectedLine[]): string[] {
  const byName = new Map(expected.map((line) => [line.name, line]));
  return expected
    .filter((line) => Object.values(line.result).some((outcome) => outcome !== 'pass') && reasonFor(line.name, byName) === '')
    .map((line) => line.name);
}

/**
 * Writes the file anew from observed results per database, keeping the reasons already written for
 * names that still exist (the update mode, TEAMSTAGE_REALCLIENTS_UPDATE=1; review the diff by hand).
 */
export function renderExpected(header: string, previous: ExpectedLine[], observed: Record<string, Observed>): string {
  const whys = new Map(previous.map((line) => [line.name, line.why]));
  const databases = Object.keys(observed);
  const names = [...new Set(databases.flatMap((database) => [...observed[database]!.keys()]))].sort();
  const body = names.map((name) => {
    const outcomes = databases.map((database) => observed[database]!.get(name) ?? 'fail');
    const result = outcomes.every((outcome) => outcome === outcomes[0])
      ? outcomes[0]!
      : databases.map((database, index) => `${database}=${outcomes[index]}`).join(',');
    const why = whys.get(name);
    return `${result.padEnd(6)} ${name}${why ? `  # ${why}` : ''}`;
  });
  return `${header.trimEnd()}\n\n${body.join('\n')}\n`;
}

export function readExpected(file: string): ExpectedLine[] {
  return fs.existsSync(file) ? parseExpected(fs.readFileSync(file, 'utf8')) : [];
}
