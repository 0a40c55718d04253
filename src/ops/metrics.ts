import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BUILD_VERSION, COMMIT, VERSION } from '../core/version.js';

export interface Metrics {
  registry: Registry;
  /** Counts a request refused in Fastify's first hook for its address's failed authentications (http/early-refusal.ts). */
  observeEarlyRefusal(): void;
}

/**
 * Prometheus metrics for one app instance (a registry of its own, so tests can build many apps): the
 * counters and the hook that feeds them. The `/metrics` route comes apart (`registerMetricsRoute`), so that
 * it can be registered after the rate limit while the early refusal gets its counter before.
 */
export function createMetrics(app: FastifyInstance): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // The Prometheus convention for telling builds apart: a constant 1 whose labels say which build this node runs.
  new Gauge({
    name: 'teamstage_build_info',
    help: 'The build this node runs (always 1): package version, commit, and both together',
    labelNames: ['version', 'commit', 'build'],
    registers: [registry],
  }).set({ version: VERSION, commit: COMMIT, build: BUILD_VERSION }, 1);
  const requests = new Counter({
    name: 'teamstage_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'teamstage_http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });
  const earlyRefusals = new Counter({
    name: 'teamstage_auth_failure_refusals_early_total',
    help: 'Requests refused (429) in the first hook, before any token lookup, because their address failed authentication too often',
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  return {
    registry,
    observeEarlyRefusal: () => earlyRefusals.inc(),
  };
}

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
