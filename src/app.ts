import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { logDestination } from './http/log-destination.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { registerJsonParsers } from './http/body-parsers.js';
import { nodeServerOptions, wrapRequestListener } from './http/node-server.js';
import { readTlsPair } from './http/tls-certificate.js';
import { refuseRequestsWhileClosing } from './http/closing-answer.js';
import { answerUnroutedBeforeBody, continueAfterCredentials, requireCredentialCheckBeforeBody } from './http/credentials-before-body.js';
import { AuthFailureLimit } from './http/auth-failure-limit.js';
import { registerAuthentication } from './http/authentication.js';
import { refuseOverBudgetFirst } from './http/early-refusal.js';
import { registerErrorHandler, sendErrors } from './http/error-handler.js';
import { errorObjectOf } from './http/error-document.js';
import { Errors } from './core/errors.js';
import { clientErrorAnswers, InFlightResponses } from './http/http-layer-answers.js';
import './http/fastify-types.js';
import { parseQueryString } from './http/querystring.js';
import { registerRateLimit } from './http/rate-limit.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { limitSendIdle } from './http/send-idle-timeout.js';
import { RequestLog } from './http/request-log.js';
import { healthRoutes } from './http/routes/health.routes.js';
import { consoleRoutes } from './http/routes/console.routes.js';
import { defaultPipelineClientFile, pipelineClientRoutes, refuseOtherPipelineClientVersions } from './http/routes/pipeline-client.routes.js';
import { WriteHealth } from './ops/write-health.js';
import { createMetrics, registerMetricsRoute } from './ops/metrics.js';
import { registerBackgroundMetrics } from './ops/background-metrics.js';
import { requestIdOf } from './http/request-id.js';
import { BackgroundStatsRepository } from './ops/background-stats.repository.js';
import { createServices, type Services } from './services.js';
import { registerApiRoutes } from './http/api-routes.js';
import { VERSION } from './core/version.js';
import { LazyValidators } from './http/lazy-validators.js';
import { LazySerializers } from './http/lazy-serializers.js';

export type App = FastifyInstance;

export interface BuildOptions {
  config: Config;
  handle: DatabaseHandle;
  /** pino options or a destination; tests pass `false` or a capturing stream. */
  logger?: boolean | Record<string, unknown>;
  /** Compiles route schemas on first use (lazy-validators.ts); tests pass one to see or force what it compiled. */
  validators?: LazyValidators;
  /** Compiles response schemas on first use (lazy-serializers.ts). */
  serializers?: LazySerializers;
}

export const BODY_LIMIT = 1024 * 1024;

/** Builds the whole HTTP application over an open, migrated database. Used by main and by tests. */
export async function buildApp(options: BuildOptions): Promise<{ app: App; services: Services }> {
  const { config, handle } = options;
  const responses = new InFlightResponses();
  const app = Fastify({
    logger:
      options.logger === undefined
        ? { level: config.logLevel, base: { pid: process.pid, hostname: config.nodeName }, redact: ['req.headers.authorization', 'req.headers["x-tfc-task-signature"]'], stream: logDestination(config.logBufferBytes) }
        : options.logger,
    bodyLimit: BODY_LIMIT,
    genReqId: requestIdOf,
    // X-Forwarded-For is believed only from these proxies (TEAMSTAGE_TRUSTED_PROXIES): request.ip is then the
    // client's, for the failed-authentication limit, the rate limit and the request log.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // One line per request instead of Fastify's two (request-log.ts).
    logController: new RequestLog(),
    routerOptions: { querystringParser: parseQueryString, maxParamLength: 500 },
    // Errors the router raises before any route runs (bad URL encoding, over-long parameters) get the
    // same JSON:API rendering as everything else.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
      void sendErrors(reply, status, [errorObjectOf(Errors.refusedBeforeRouting(status, error.message))]);
    },
    ajv: {
      // A known attribute of the wrong type is a 422, never silently coerced.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false },
    },
    schemaController: {
      compilersFactory: {
        buildValidator: (options.validators ?? new LazyValidators()).buildValidator,
        buildSerializer: (options.serializers ?? new LazySerializers()).buildSerializer,
      },
    },
    // Both answered as JSON:API instead: 503 while closing (closing-answer.ts), node:http's own 400/408/414/431.
    return503OnClosing: false,
    clientErrorHandler: clientErrorAnswers(responses),
    ...nodeServerOptions({
      headersTimeoutMs: config.http.headersTimeoutSeconds * 1000,
      requestTimeoutMs: config.http.requestTimeoutSeconds * 1000,
      keepAliveTimeoutMs: config.http.keepAliveTimeoutSeconds * 1000,
    }, config.tls ? readTlsPair(config.tls) : undefined),
  }).withTypeProvider<TypeBoxTypeProvider>();
  wrapRequestListener(app.server, responses);

  const services = createServices(handle, config, app.log);
  // The key of the signed log URLs, read (or made) once: every node of a cluster shares it through the database.
  await services.phaseLogs.load();

  const metrics = createMetrics(app);
  // Background work in /metrics: the job table and runs read at scrape time, deliveries and job failures as they happen.
  const background = registerBackgroundMetrics(metrics.registry, new BackgroundStatsRepository(handle.db));
  services.taskDelivery.onAttempt(background.delivery);
  services.jobs.worker.onFailure(background.jobFailed);
  services.jobs.worker.onTakeover(background.jobTakenOver);
  addSecurityHeaders(app);
  limitSendIdle(app, config.http.sendIdleTimeoutSeconds);
  const failures = config.authFailureLimit > 0 ? new AuthFailureLimit({ limit: config.authFailureLimit }) : undefined;
  // The first onRequest hook: an address over its failed-authentication budget costs nothing further.
  if (failures) refuseOverBudgetFirst(app, failures, metrics.observeEarlyRefusal);
  const writeHealth = new WriteHealth(handle);
  registerErrorHandler(app, { onStorageFailure: (failure) => writeHealth.refused(failure) });
  refuseRequestsWhileClosing(app);
  refuseOtherPipelineClientVersions(app, config.baseUrl);
  requireCredentialCheckBeforeBody(app);
  registerJsonParsers(app);
  // SQLite group commit: no response that may acknowledge or show a commit still in flight leaves before
  // the commits made so far are on disk. A GET that only read saw the durable snapshot and waits for no sync.
  const snapshotReads = handle.snapshotReads;
  // The rest of the request runs in its scope (how @fastify/request-context does it). Work resumed from
  // socket events (a body's chunks) may lose it: that only sends the request to the writer, always correct.
  if (snapshotReads) app.addHook('onRequest', (_request, _reply, done) => snapshotReads.run(() => done()));
  if (handle.durable) {
    app.addHook('onSend', async (request) => {
      // Any other method may have written, and not always in its own scope: concurrent team creations are
      // written in one batch (team-inserts.ts), run in whichever request's scope came first.
      const reads = request.method === 'GET' || request.method === 'HEAD';
      if (!reads || (snapshotReads?.mayShowUndurable() ?? true)) await handle.durable?.();
    });
  }
  app.decorateRequest('principal', null);
  // Every answer names its request, so a client's report and the server's log line meet (request-id.ts).
  // onSend, so that answers of the first hooks (an early 429) carry it too.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  app.decorateRequest('found', undefined);
  app.decorateRequest('teamReadAhead', undefined);

  await app.register(swagger, {
    openapi: {
      info: { title: 'Teamstage API', version: VERSION, description: 'HCP Terraform API v2: teams and run task gating' },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });

  registerAuthentication(app, { authenticator: services.authenticator, failures, tokenUsage: services.tokenUsage, teamReads: services.teamReadsWithCredential });
  answerUnroutedBeforeBody(app);
  continueAfterCredentials(app);
  await registerRateLimit(app, config.rateLimit);

  registerMetricsRoute(app, metrics);
  await app.register(healthRoutes, { handle, rateLimit: config.rateLimit, writeHealth });
  await app.register(consoleRoutes);
  await app.register(pipelineClientRoutes, { file: config.pipeline.clientFile ?? defaultPipelineClientFile() });
  await app.register(async (api) => registerApiRoutes(api, services), { prefix: '/api/v2' });
  app.get('/api/docs', { schema: { hide: true } }, async () => app.swagger());

  app.addHook('onClose', async () => services.stop());
  // The address actually bound (PORT=0 picks one at listen time) is one run tasks may not point at.
  app.addHook('onListen', async () => services.taskDestinations.listening(app.addresses()));
  await app.ready();
  // Workers start after every route module registered its job handlers.
  if (config.jobs.enabled) services.jobs.start();
  return { app, services };
}
