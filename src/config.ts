import os from 'node:os';
import path from 'node:path';
import type { SqliteSynchronous } from './db/database.js';
import { policySettings, type PolicySettings } from './config-policies.js';
import type { DestinationRule } from './outbound/destination-policy.js';
import { ConfigError, DEFAULT_ORGANIZATIONS_PER_USER, FEATURE_SET_NAMES, LOG_LEVELS, SITE_TOKEN_MIN_LENGTH, booleanSetting, checkPostgresUrl, destinationRules, organizationCreators, positiveNumber, secretSetting, tlsFiles, trustedProxies, wholeCount, type OrganizationCreators } from './config-values.js';
export { ConfigError, ORGANIZATION_CREATORS, DEFAULT_ORGANIZATIONS_PER_USER, LOG_LEVELS, SITE_TOKEN_MIN_LENGTH, secretSetting, FEATURE_SET_NAMES } from './config-values.js';
export type { OrganizationCreators } from './config-values.js';

/** Every setting Teamstage reads, validated once at start so a typo fails loudly instead of later. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** SQLite only: GROUP and FULL survive power loss (GROUP syncs commits together), NORMAL only process crashes. */
  sqliteSynchronous: SqliteSynchronous;
  baseUrl: string;
  /**
   * TEAMSTAGE_TLS_CERT / TEAMSTAGE_TLS_KEY: PEM files; when set, the server speaks HTTPS itself (the `tfe`
   * provider and terraform's `cloud` block only speak https) and re-reads both files on SIGHUP.
   */
  tls: { certFile: string; keyFile: string } | undefined;
  siteToken: string | undefined;
  defaultFeatureSet: string;
  /**
   * Who may create organizations (TEAMSTAGE_ORGANIZATION_CREATORS): `anyone` (every user and the site admin)
   * or `site-admin`; and how many one user may have created at once (TEAMSTAGE_ORGANIZATIONS_PER_USER, 0: no limit).
   */
  organizations: { creators: OrganizationCreators; perUser: number };
  /** Requests per second per principal; 0 disables the limit. */
  rateLimit: number;
  /** Failed authentications per client address (IPv6: per /64) per minute before it gets 429; 0 disables. */
  authFailureLimit: number;
  /**
   * TEAMSTAGE_TRUSTED_PROXIES: CIDRs (or addresses) of the proxies whose `X-Forwarded-For` is believed. The
   * client address (failed-authentication limit, rate limit before authentication, request log) is then the
   * last address in that header not itself a trusted proxy; empty: the peer's address, the header ignored.
   */
  trustedProxies: string[];
  logLevel: string;
  /**
   * TEAMSTAGE_NODE_NAME: this node's name in every log line (pino's `hostname` field); the host name by
   * default. Containers of one pod share a host name (and pid 1), so their logs need one each (issue 40).
   */
  nodeName: string;
  /**
   * TEAMSTAGE_LOG_BUFFER_BYTES: log lines are written to stdout in batches of about this many bytes, and
   * always at exit and within a second (src/http/log-destination.ts); 0 writes every line at once.
   */
  logBufferBytes: number;
  /** Queries slower than this many milliseconds are logged (SQL only); 0: off. */
  slowQueryMs: number;
  /** Directory for the generated site token (and the SQLite file by default). */
  dataDir: string;
  /** Slow or idle clients are cut off after these, so none can hold a connection (and what it buffers) at will. */
  http: {
    /** Seconds a client has to send a request's headers. */
    headersTimeoutSeconds: number;
    /** Seconds a client has to send a whole request, body included. */
    requestTimeoutSeconds: number;
    /** Seconds an idle keep-alive connection stays open. */
    keepAliveTimeoutSeconds: number;
    /**
     * TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT: seconds an answer may wait for the client to take more of it; then
     * the connection is cut, so a client that never reads holds nothing for long.
     */
    sendIdleTimeoutSeconds: number;
    /**
     * TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT: seconds an upload's body (configuration, plan JSON, log) may stall
     * before a 408 and the connection's end, well before the request timeout.
     */
    receiveIdleTimeoutSeconds: number;
  };
  tasks: {
    callbackTimeoutSeconds: number;
    maxDurationSeconds: number;
    retryDelaysSeconds: number[];
    requestTimeoutSeconds: number;
    /** TEAMSTAGE_TASK_URL_ALLOW / _DENY: where run task requests may go (src/outbound/destination-policy.ts). */
    urlAllow: DestinationRule[];
    urlDeny: DestinationRule[];
  };
  /** Agent execution mode (issue 16): what a pipeline may upload, and how long a claimed phase may go unreported. */
  /**
   * TEAMSTAGE_SIMULATED_PLAN_CHANGES (`true` / `false`, default false): the built-in no-op executor's plans
   * create one simulated resource, so remote runs wait for their apply (src/runs/noop-executor.ts).
   */
  simulatedPlanChanges: boolean;
  agent: {
    /** TEAMSTAGE_AGENT_PHASE_TIMEOUT: seconds from a claim to its report; after that the run errors. */
    phaseTimeoutSeconds: number;
    /** TEAMSTAGE_AGENT_CLAIM_TIMEOUT: seconds a plan or apply waits for a pipeline's claim; after that the run errors. */
    claimTimeoutSeconds: number;
    /** TEAMSTAGE_PLAN_JSON_MAX_BYTES: the largest plan JSON accepted (422 beyond). */
    planJsonMaxBytes: number;
    /** TEAMSTAGE_PLAN_JSON_MAX_DEPTH: how deep arrays and objects may nest in a plan JSON (422 beyond). */
    planJsonMaxDepth: number;
    /** TEAMSTAGE_PLAN_JSON_MAX_VALUES: how many values (objects, arrays, strings, numbers, literals) a plan JSON may hold (422 beyond). */
    planJsonMaxValues: number;
    /** TEAMSTAGE_LOG_MAX_BYTES: the largest plan or apply log accepted (422 beyond). */
    logMaxBytes: number;
    /** TEAMSTAGE_LOG_URL_TTL: seconds a plan's or apply's signed log-read-url stays valid (at least; rounded up to 5 minutes). */
    logUrlTtlSeconds: number;
    /** TEAMSTAGE_LOG_URL_KEY_LIFETIME: seconds one signing key signs log URLs; it verifies one lifetime more, then is deleted. */
    logUrlKeyLifetimeSeconds: number;
  };
  /** The `teamstage pipeline` client side (docs/pipeline.md, "Gate your pipeline"). */
  pipeline: {
    /**
     * TEAMSTAGE_PIPELINE_CLIENT_FILE: the standalone client served at /pipeline/teamstage-pipeline.mjs
     * (default: this installation's dist/bundle/teamstage-pipeline.mjs; undefined: that default).
     */
    clientFile: string | undefined;
    /** TEAMSTAGE_RUN_WAIT_MAX: seconds a waiting run read (`GET /runs/:id?wait=`) may wait at most. */
    runWaitMaxSeconds: number;
    /** TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL: waiting run reads one token may have open at once (429 beyond). */
    runWaitsPerPrincipal: number;
  };
  /** What one tenant may pile up in a run or a workspace (issue 34): refused beyond, with a named error. */
  runLimits: {
    /** TEAMSTAGE_COMMENTS_PER_RUN: comments a run may have, decisions' comments included (422 beyond). */
    commentsPerRun: number;
    /** TEAMSTAGE_COMMENT_MAX_CHARS: the longest comment body, in characters (422 beyond). */
    commentMaxChars: number;
    /** TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE: runs that may wait `pending` in one workspace's queue (429 beyond). */
    pendingRunsPerWorkspace: number;
  };
  /** Policy evaluation with OPA (issues 29, 34; src/policies/opa-engine.ts, config-policies.ts). */
  policies: PolicySettings;
  jobs: {
    /** Seconds a claimed job stays leased; after a crash its jobs wait at most this long. */
    leaseSeconds: number;
    /** Seconds between catch-up polls of the job table. */
    pollSeconds: number;
    /** Database-only jobs (run progress, settling, overrides, timeouts) one node handles at once. */
    concurrency: number;
    /** Of those, at most this many for one organization; claimed in turn across organizations either way (issue 34). */
    perOrganization: number;
    /** Run task deliveries one node has in flight at once; they wait on remote services, so never in the slots above. */
    deliveryConcurrency: number;
    /** Of those, at most this many for one organization, so no organization's slow endpoints hold every slot. */
    deliveryPerOrganization: number;
    /** false: this process only serves HTTP (tests that drive jobs by hand). */
    enabled: boolean;
    /**
     * TEAMSTAGE_STOP_GRACE: seconds a stopping node (SIGTERM) lets running jobs finish before it abandons
     * them (a run task request still waiting is cut; the job goes to another node at once). Default 3, so a
     * stop takes about 4 s at most: well inside the 10 s that podman, Docker and Kubernetes wait before a kill.
     */
    stopGraceSeconds: number;
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = positiveNumber('PORT', env.PORT, 8080, true);
  if (!Number.isInteger(port) || port > 65535) throw new ConfigError(`PORT must be an integer 0..65535, got "${env.PORT}"`);
  // Unset: SQLite in the data directory. The image sets only TEAMSTAGE_DATA_DIR=/data, so DATABASE_URL or
  // DATABASE_URL_FILE (one of them, never both) is the operator's alone to give (issue 40).
  const databaseUrl = secretSetting(env, 'DATABASE_URL') ?? `sqlite:${env.TEAMSTAGE_DATA_DIR ? path.join(env.TEAMSTAGE_DATA_DIR, 'teamstage.sqlite') : './data/teamstage.sqlite'}`;
  if (!/^sqlite:/.test(databaseUrl) && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  if (databaseUrl.startsWith('postgres')) checkPostgresUrl(databaseUrl);
  const tls = tlsFiles(env);
  const baseUrl = (env.TEAMSTAGE_BASE_URL || `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`TEAMSTAGE_BASE_URL is not a URL: "${baseUrl}"`);
  }
  const sqliteSynchronous = (env.TEAMSTAGE_SQLITE_SYNCHRONOUS || 'GROUP').toUpperCase();
  if (sqliteSynchronous !== 'GROUP' && sqliteSynchronous !== 'FULL' && sqliteSynchronous !== 'NORMAL') {
    throw new ConfigError('TEAMSTAGE_SQLITE_SYNCHRONOUS must be GROUP, FULL or NORMAL');
  }
  const defaultFeatureSet = env.TEAMSTAGE_DEFAULT_FEATURE_SET || 'Business';
  if (!FEATURE_SET_NAMES.some((name) => name.toLowerCase() === defaultFeatureSet.toLowerCase())) {
    throw new ConfigError(`TEAMSTAGE_DEFAULT_FEATURE_SET must be one of ${FEATURE_SET_NAMES.join(', ')}`);
  }
  const retryDelaysSeconds = (env.TEAMSTAGE_TASK_RETRY_DELAYS ?? '1,5,25')
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => positiveNumber('TEAMSTAGE_TASK_RETRY_DELAYS', part.trim(), 0, true));
  const sqlitePath = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined;
  const dataDir = env.TEAMSTAGE_DATA_DIR || (sqlitePath && sqlitePath !== ':memory:' ? path.dirname(sqlitePath) : './data');
  const http = {
    headersTimeoutSeconds: positiveNumber('TEAMSTAGE_HTTP_HEADERS_TIMEOUT', env.TEAMSTAGE_HTTP_HEADERS_TIMEOUT, 20),
    requestTimeoutSeconds: positiveNumber('TEAMSTAGE_HTTP_REQUEST_TIMEOUT', env.TEAMSTAGE_HTTP_REQUEST_TIMEOUT, 300),
    keepAliveTimeoutSeconds: positiveNumber('TEAMSTAGE_HTTP_KEEP_ALIVE_TIMEOUT', env.TEAMSTAGE_HTTP_KEEP_ALIVE_TIMEOUT, 72),
    sendIdleTimeoutSeconds: positiveNumber('TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT', env.TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT, 30),
    receiveIdleTimeoutSeconds: positiveNumber('TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT', env.TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT, 30),
  };
  // node:http refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (http.headersTimeoutSeconds > http.requestTimeoutSeconds) {
    throw new ConfigError('TEAMSTAGE_HTTP_HEADERS_TIMEOUT must not be longer than TEAMSTAGE_HTTP_REQUEST_TIMEOUT');
  }
  const jobConcurrency = Math.max(1, Math.floor(positiveNumber('TEAMSTAGE_JOB_CONCURRENCY', env.TEAMSTAGE_JOB_CONCURRENCY, 32)));
  // Every slot by default: a tenant alone runs at full speed; turn-taking alone keeps others from waiting on it.
  const jobPerOrganization = wholeCount('TEAMSTAGE_JOB_PER_ORGANIZATION', env.TEAMSTAGE_JOB_PER_ORGANIZATION, jobConcurrency);
  if (jobPerOrganization < 1 || jobPerOrganization > jobConcurrency) {
    throw new ConfigError(`TEAMSTAGE_JOB_PER_ORGANIZATION (${jobPerOrganization}) must be between 1 and TEAMSTAGE_JOB_CONCURRENCY (${jobConcurrency})`);
  }
  const deliveryConcurrency = wholeCount('TEAMSTAGE_DELIVERY_CONCURRENCY', env.TEAMSTAGE_DELIVERY_CONCURRENCY, 128);
  const deliveryPerOrganization = wholeCount('TEAMSTAGE_DELIVERY_PER_ORGANIZATION', env.TEAMSTAGE_DELIVERY_PER_ORGANIZATION, Math.max(1, Math.floor(deliveryConcurrency / 4)));
  if (deliveryPerOrganization > deliveryConcurrency) {
    throw new ConfigError(`TEAMSTAGE_DELIVERY_PER_ORGANIZATION (${deliveryPerOrganization}) must not exceed TEAMSTAGE_DELIVERY_CONCURRENCY (${deliveryConcurrency})`);
  }
  const siteToken = secretSetting(env, 'TEAMSTAGE_SITE_TOKEN');
  // Anyone who guesses it owns the server: refuse a short one instead of trusting a typo or a placeholder.
  if (siteToken !== undefined && siteToken.length < SITE_TOKEN_MIN_LENGTH) {
    throw new ConfigError(`TEAMSTAGE_SITE_TOKEN must be at least ${SITE_TOKEN_MIN_LENGTH} characters (it has ${siteToken.length}); make one with: openssl rand -hex 32`);
  }
  if (siteToken !== undefined && /\s/.test(siteToken)) throw new ConfigError('TEAMSTAGE_SITE_TOKEN must not contain white space');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const authFailureLimit = positiveNumber('TEAMSTAGE_AUTH_FAILURE_LIMIT', env.TEAMSTAGE_AUTH_FAILURE_LIMIT, 60, true);
  if (!Number.isInteger(authFailureLimit)) throw new ConfigError(`TEAMSTAGE_AUTH_FAILURE_LIMIT must be a whole number, got "${env.TEAMSTAGE_AUTH_FAILURE_LIMIT}"`);

  return {
    host,
    port,
    databaseUrl,
    sqliteSynchronous,
    baseUrl,
    tls,
    siteToken,
    defaultFeatureSet,
    organizations: {
      creators: organizationCreators(env.TEAMSTAGE_ORGANIZATION_CREATORS),
      perUser: wholeCount('TEAMSTAGE_ORGANIZATIONS_PER_USER', env.TEAMSTAGE_ORGANIZATIONS_PER_USER, DEFAULT_ORGANIZATIONS_PER_USER, true),
    },
    rateLimit: positiveNumber('TEAMSTAGE_RATE_LIMIT', env.TEAMSTAGE_RATE_LIMIT, 30, true),
    authFailureLimit,
    trustedProxies: trustedProxies(env.TEAMSTAGE_TRUSTED_PROXIES),
    logLevel,
    nodeName: env.TEAMSTAGE_NODE_NAME || os.hostname(),
    // 0 is documented: each line written at once.
    logBufferBytes: wholeCount('TEAMSTAGE_LOG_BUFFER_BYTES', env.TEAMSTAGE_LOG_BUFFER_BYTES, 4096, true),
    slowQueryMs: positiveNumber('TEAMSTAGE_SLOW_QUERY_MS', env.TEAMSTAGE_SLOW_QUERY_MS, 0, true),
    dataDir,
    http,
    tasks: {
      callbackTimeoutSeconds: positiveNumber('TEAMSTAGE_TASK_CALLBACK_TIMEOUT', env.TEAMSTAGE_TASK_CALLBACK_TIMEOUT, 600),
      maxDurationSeconds: positiveNumber('TEAMSTAGE_TASK_MAX_DURATION', env.TEAMSTAGE_TASK_MAX_DURATION, 3600),
      retryDelaysSeconds,
      requestTimeoutSeconds: positiveNumber('TEAMSTAGE_TASK_REQUEST_TIMEOUT', env.TEAMSTAGE_TASK_REQUEST_TIMEOUT, 10),
      urlAllow: destinationRules('TEAMSTAGE_TASK_URL_ALLOW', env.TEAMSTAGE_TASK_URL_ALLOW),
      urlDeny: destinationRules('TEAMSTAGE_TASK_URL_DENY', env.TEAMSTAGE_TASK_URL_DENY),
    },
    simulatedPlanChanges: booleanSetting('TEAMSTAGE_SIMULATED_PLAN_CHANGES', env.TEAMSTAGE_SIMULATED_PLAN_CHANGES),
    agent: {
      phaseTimeoutSeconds: positiveNumber('TEAMSTAGE_AGENT_PHASE_TIMEOUT', env.TEAMSTAGE_AGENT_PHASE_TIMEOUT, 3600),
      // One hour: what `teamstage pipeline plan-start` and `apply-start` wait by default (--timeout 3600). The
      // clock starts when the phase becomes claimable (not while the run waits for its turn), and a job that
      // started the run claims within seconds of that; past an hour no client is waiting any more.
      claimTimeoutSeconds: positiveNumber('TEAMSTAGE_AGENT_CLAIM_TIMEOUT', env.TEAMSTAGE_AGENT_CLAIM_TIMEOUT, 3600),
      planJsonMaxBytes: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_BYTES', env.TEAMSTAGE_PLAN_JSON_MAX_BYTES, 50 * 1024 * 1024),
      // Real plans nest about 10 levels (the fixtures: 7-11) and take 16-21 bytes per value, so a plan of the
      // largest size holds some 3 million values: both defaults leave room, and refuse what only an attack makes.
      planJsonMaxDepth: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_DEPTH', env.TEAMSTAGE_PLAN_JSON_MAX_DEPTH, 128),
      planJsonMaxValues: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_VALUES', env.TEAMSTAGE_PLAN_JSON_MAX_VALUES, 10_000_000),
      logMaxBytes: wholeCount('TEAMSTAGE_LOG_MAX_BYTES', env.TEAMSTAGE_LOG_MAX_BYTES, 10 * 1024 * 1024),
      logUrlTtlSeconds: positiveNumber('TEAMSTAGE_LOG_URL_TTL', env.TEAMSTAGE_LOG_URL_TTL, 86_400),
      // A day: a URL handed out late in its key's day still lives its TTL (a day) before the key retires.
      logUrlKeyLifetimeSeconds: positiveNumber('TEAMSTAGE_LOG_URL_KEY_LIFETIME', env.TEAMSTAGE_LOG_URL_KEY_LIFETIME, 86_400),
    },
    pipeline: {
      clientFile: env.TEAMSTAGE_PIPELINE_CLIENT_FILE ? path.resolve(env.TEAMSTAGE_PIPELINE_CLIENT_FILE) : undefined,
      runWaitMaxSeconds: positiveNumber('TEAMSTAGE_RUN_WAIT_MAX', env.TEAMSTAGE_RUN_WAIT_MAX, 30),
      runWaitsPerPrincipal: wholeCount('TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL', env.TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL, 10),
    },
    // A person's discussion of a run is a few comments; 100 of 10,000 characters is already a megabyte read with
    // every run document. A queue of 50 is hours of runs in the busiest workspace; an attack queued 150.
    runLimits: {
      commentsPerRun: Math.max(1, wholeCount('TEAMSTAGE_COMMENTS_PER_RUN', env.TEAMSTAGE_COMMENTS_PER_RUN, 100)),
      commentMaxChars: Math.max(1, wholeCount('TEAMSTAGE_COMMENT_MAX_CHARS', env.TEAMSTAGE_COMMENT_MAX_CHARS, 10_000)),
      pendingRunsPerWorkspace: Math.max(1, wholeCount('TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE', env.TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE, 50)),
    },
    policies: policySettings(env, { positiveNumber, wholeCount, fail: (message) => new ConfigError(message) }),
    jobs: {
      leaseSeconds: positiveNumber('TEAMSTAGE_JOB_LEASE', env.TEAMSTAGE_JOB_LEASE, 30),
      pollSeconds: positiveNumber('TEAMSTAGE_JOB_POLL', env.TEAMSTAGE_JOB_POLL, 1),
      concurrency: jobConcurrency,
      perOrganization: jobPerOrganization,
      deliveryConcurrency,
      deliveryPerOrganization,
      enabled: env.TEAMSTAGE_JOBS !== 'off',
      stopGraceSeconds: positiveNumber('TEAMSTAGE_STOP_GRACE', env.TEAMSTAGE_STOP_GRACE, 3, true),
    },
  };
}
