/**
 * The throughput rows load both sides with wrk (issue 26: autocannon held the physical limit at half a core).
 * What is pure here: reading the JSON line bench/wrk/report.lua prints into a LoadResult, and the command
 * line and script arguments the bench gives wrk. A wrong unit or a dropped error count would skew every
 * row without failing anything else.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { walkScriptArgs } from '../../bench/mixed-load.js';
import { parseWrkReport } from '../../bench/wrk-report.js';
import { wrkArguments } from '../../bench/wrk-load.js';

// What wrk 4.1.0 printed with bench/wrk/walk.lua: its own summary, then the report line.
const WRK_STDOUT = `Running 2s test @ http://127.0.0.1:18080/
  2 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   258.01us  544.38us   9.72ms   94.68%
    Req/Sec    12.99k     5.97k   22.83k    63.41%
  52962 requests in 2.10s, 6.35MB read
  Non-2xx or 3xx responses: 13240
Requests/sec:  25222.91
Transfer/sec:      3.02MB
{"wrkReport":1,"durationUs":2099758,"requests":52962,"p50Us":121,"p99Us":2851,"connectErrors":1,"readErrors":2,"writeErrors":3,"timeouts":4,"statusErrors":13240,"generatorCpuSeconds":1.070}
`;

describe("bench: wrk's report line", () => {
  it('reads throughput per second of wrk’s own duration, latencies in ms, failures and the generator’s CPU', () => {
    const result = parseWrkReport(WRK_STDOUT);
    assert.equal(result.rps.toFixed(2), '25222.91', 'the same figure as wrk’s Requests/sec');
    assert.equal(result.total, 52_962);
    assert.equal(result.p50, 0.121);
    assert.equal(result.p99, 2.851);
    assert.equal(result.non2xx, 13_240, 'wrk’s status errors: responses of 400 and above');
    assert.equal(result.errors, 10, 'connect, read, write errors and timeouts together');
    assert.equal(result.generatorCpuMs, 1070);
  });

  it('refuses stdout without a report line, or a line missing a field, rather than reading zeros', () => {
    assert.throws(() => parseWrkReport(WRK_STDOUT.split('{"wrkReport"')[0]!), /no report line/);
    const withoutTimeouts = WRK_STDOUT.replace('"timeouts":4,', '');
    assert.throws(() => parseWrkReport(withoutTimeouts), /lacks timeouts/);
  });
});

describe("bench: wrk's command line", () => {
  it('one thread, the connections and seconds asked for, a 10 s timeout, the script, then its arguments', () => {
    const args = wrkArguments({ url: 'http://127.0.0.1:4000', script: 'walk', scriptArgs: ['keys', 'tokens'], connections: 50, durationSeconds: 5 });
    const script = args[args.indexOf('--script') + 1]!;
    assert.ok(script.endsWith('/bench/wrk/walk.lua') && fs.existsSync(script), script);
    assert.deepEqual(args, ['--threads', '1', '--connections', '50', '--duration', '5s', '--timeout', '10s', '--script', script, 'http://127.0.0.1:4000', '--', 'keys', 'tokens']);
  });

  it('passes headers to a fixed request, and no `--` without script arguments', () => {
    const args = wrkArguments({ url: 'http://127.0.0.1:4000/api/v2/teams/x', script: 'fixed', headers: { authorization: 'Bearer t' }, connections: 50, durationSeconds: 5 });
    assert.deepEqual(args.slice(8, 10), ['--header', 'authorization: Bearer t']);
    assert.equal(args.at(-1), 'http://127.0.0.1:4000/api/v2/teams/x');
    assert.ok(!args.includes('--'));
  });
});

describe("bench: walk.lua's arguments", () => {
  const files = { keys: '/tmp/k', tokens: '/tmp/t' };

  it('a team GET by default: the path is cut around the key, PATCH goes to the team', () => {
    assert.deepEqual(walkScriptArgs(files, 0.05), ['/tmp/k', '/tmp/t', '0.05', '/api/v2/teams/', '', '/api/v2/teams/']);
  });

  it('a list query: the key is the q, at the end of the path', () => {
    const args = walkScriptArgs(files, 0, (q) => `/api/v2/organizations/acme/teams?q=${q}`);
    assert.deepEqual(args.slice(2, 5), ['0', '/api/v2/organizations/acme/teams?q=', '']);
    assert.equal(walkScriptArgs(files, 0, (id) => `/x/${id}/y`)[4], '/y', 'text after the key is kept');
  });

  it('refuses a path holding the key twice or not at all, and a share outside 0 to 1', () => {
    assert.throws(() => walkScriptArgs(files, 0, (key) => `/${key}/${key}`), /once/);
    assert.throws(() => walkScriptArgs(files, 0, () => '/fixed'), /once/);
    assert.throws(() => walkScriptArgs(files, 5), /fraction/);
  });
});
