/**
 * `node --import tsx bench/request-log-cost.ts [requests]`: what the request log costs per request at the
 * default level (info), issue 39. The same trivial Fastify route with the server's logger setup (its
 * controller, request ids, buffered destination, here into /dev/null) against the same route with no logger,
 * in alternating rounds; CPU time per request from process.cpuUsage, so a busy machine slows both alike.
 * Variants show where the cost lies. A diagnostic, not a bench row.
 */
import Fastify, { type FastifyServerOptions } from 'fastify';
import { logDestination } from '../src/http/log-destination.js';
import { RequestLog } from '../src/http/request-log.js';
import { requestIdOf } from '../src/http/request-id.js';

const requests = Number(process.argv[2] ?? 20_000);
const REDACT = ['req.headers.authorization', 'req.headers["x-tfc-task-signature"]'];

const variants: Record<string, () => FastifyServerOptions['logger']> = {
  'no logger': () => false,
  'server setup (info, redact, buffered)': () => ({ level: 'info', redact: REDACT, stream: logDestination(4096, '/dev/null') }),
  'without redact': () => ({ level: 'info', stream: logDestination(4096, '/dev/null') }),
  'lines made, then dropped (no destination)': () => ({ level: 'info', redact: REDACT, stream: { write() {} } }),
  'level warn (lines off)': () => ({ level: 'warn', redact: REDACT, stream: logDestination(4096, '/dev/null') }),
};

async function appWith(logger: FastifyServerOptions['logger']) {
  const app = Fastify({ logger, genReqId: requestIdOf, logController: new RequestLog() });
  app.get('/api/v2/teams/:id', async () => ({ data: { id: 'team-1' } }));
  await app.ready();
  return app;
}

async function cpuPerRequest(app: Awaited<ReturnType<typeof appWith>>, count: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) await app.inject({ method: 'GET', url: '/api/v2/teams/team-1', headers: { authorization: 'Bearer secret' } });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

const apps = Object.fromEntries(await Promise.all(Object.entries(variants).map(async ([name, logger]) => [name, await appWith(logger())] as const)));
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(apps).map((name) => [name, []]));
for (const app of Object.values(apps)) await cpuPerRequest(app, 2000); // warm the JIT
for (let round = 0; round < 5; round++) {
  for (const [name, app] of Object.entries(apps)) samples[name]!.push(await cpuPerRequest(app, requests / 5));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const base = median(samples['no logger']!);
for (const [name, values] of Object.entries(samples)) {
  const value = median(values);
  console.log(`${name.padEnd(40)} ${value.toFixed(1).padStart(6)} µs CPU/request  (+${(value - base).toFixed(1)} µs over no logger)`);
}
await Promise.all(Object.values(apps).map((app) => app.close()));
