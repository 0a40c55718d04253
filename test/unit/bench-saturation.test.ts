/**
 * A bench row compares Teamstage with a limit; a limit its load generator held back (issue 26: 82 µs of CPU
 * per request at 6,304 req/s, about half a core) makes the ratio measure the load generator. Each side now
 * reports how many cores its processes kept busy, and a side below 0.8 core per process is flagged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuPerRequest, isSaturated } from '../../bench/measure.js';
import { cpuText, ratiosText } from '../../bench/row-text.js';

describe('bench: CPU per request and saturation of each side', () => {
  it("reads the issue's limit as not saturated: 6,304 req/s at 82 µs per request is about half a core", () => {
    // Five seconds of load: 31,520 requests, 2,585 ms of server CPU.
    const cpu = cpuPerRequest({ server: 2585, database: 0, generator: 0, generatorThreads: 0, machine: 0, wallMs: 5000 }, 31_520, false);
    assert.equal(Math.round(cpu.serverUs), 82);
    assert.equal(cpu.serverCores?.toFixed(2), '0.52');
    assert.equal(isSaturated(cpu), false);
    assert.match(cpuText(cpu), /^server 82 µs \(0\.52 core busy: NOT SATURATED, bounded by the load generator/);
  });

  it('a server busy nearly all the time is saturated; several processes are judged together', () => {
    const one = cpuPerRequest({ server: 4800, database: 300, generator: 0, generatorThreads: 0, machine: 0, wallMs: 5000 }, 100_000, true);
    assert.equal(isSaturated(one), true);
    assert.equal(cpuText(one), 'server 48 µs, PostgreSQL 3 µs (0.96 core busy)');
    const two = cpuPerRequest({ server: 6000, database: 0, generator: 0, generatorThreads: 0, machine: 0, wallMs: 5000 }, 100_000, false, 2);
    assert.equal(isSaturated(two), false, '1.2 cores of 2 is not saturated');
    assert.match(cpuText(two), /1\.20 cores busy of 2: NOT SATURATED/);
  });

  it("says what held an unsaturated side back: the machine's cores when full, else the generator or waiting", () => {
    // The limit with the machine's time read: 2 cores, the generator and another process took the rest.
    const full = cpuPerRequest({ server: 2585, database: 0, generator: 2000, generatorThreads: 1, machine: 9800, wallMs: 5000 }, 31_520, false);
    assert.ok(full.machineSize! >= 1, "the machine's cores are known (Linux)");
    const onTwoCores = { ...full, machineSize: 2 };
    assert.match(cpuText(onTwoCores), /0\.52 core busy: NOT SATURATED, 1\.96 of the machine's 2 cores busy \(load generator 0\.40, other processes 1\.04\): bounded by the machine's cores/);
    assert.match(cpuText(onTwoCores), /; load generator 63 µs$/, "the generator's own CPU per request follows");
    // The PostgreSQL q= limit: PostgreSQL's trigram search outweighs the server's work, and fills the machine.
    const search = { ...cpuPerRequest({ server: 1730, database: 4770, generator: 200, generatorThreads: 1, machine: 9850, wallMs: 5000 }, 5145, true), machineSize: 2 };
    assert.match(cpuText(search), /0\.35 core busy: NOT SATURATED, 1\.97 of the machine's 2 cores busy \(load generator 0\.04, PostgreSQL 0\.95, other processes 0\.63\): bounded by the machine's cores, PostgreSQL's most of all/);
    // Cores to spare: the one wrk thread busy means the generator held it back; idle, the side was waiting.
    const spare = (generator: number) =>
      cpuText({ ...cpuPerRequest({ server: 2585, database: 1000, generator, generatorThreads: 1, machine: 3700 + generator, wallMs: 5000 }, 31_520, true), machineSize: 2 });
    assert.match(spare(500), /0\.84 of the machine's 2 cores busy \(load generator 0\.10, PostgreSQL 0\.20, other processes 0\.02\): bounded by waiting \(on the database, on fsync; the load generator's 1 thread had time to spare\)/);
    assert.match(spare(4500), /1\.64 of the machine's 2 cores busy \(load generator 0\.90, PostgreSQL 0\.20, other processes 0\.02\): bounded by the load generator \(its 1 thread busy\)/);
  });
});

describe('bench: both ratios of a row', () => {
  it("throughput (Teamstage's over the limit's), then CPU per request with PostgreSQL's share counted", () => {
    const limit = { rps: 21_427, cpu: { serverUs: 40, databaseUs: 20 } };
    const teamstage = { rps: 3198, cpu: { serverUs: 300, databaseUs: 60 } };
    assert.equal(ratiosText(teamstage, limit), '0.15× throughput; 6.0× CPU per request');
  });

  it('only throughput when CPU was not measured', () => {
    assert.equal(ratiosText({ rps: 50 }, { rps: 100 }), '0.50× throughput');
  });
});
