import { isIP } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import type { SqliteSynchronous } from './db/database.js';
import { parseDestinationRules, type DestinationRule } from './outbound/destination-policy.js';

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
  agent: {
    /** TEAMSTAGE_AGENT_PHASE_TIMEOUT: seconds from a claim to its report; after that the run errors. */
    phaseTimeoutSeconds: number;
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
  /** Policy evaluation with OPA (issue 29; src/policies/opa-engine.ts). */
  policies: {
    /** TEAMSTAGE_OPA_PATH: the opa binary; unset: `opa` on the PATH. */
    opaPath: string | undefined;
    /** TEAMSTAGE_POLICY_TIMEOUT: seconds one policy's evaluation may take before it is stopped and errored. */
    timeoutSeconds: number;
    /** TEAMSTAGE_POLICY_MEMORY_MB: memory one evaluation may take (OPA's data segment) before it is stopped and errored. */
    memoryMb: number;
    /** TEAMSTAGE_POLICY_CONCURRENCY: OPA processes at once on this node (the rest wait their turn). */
    concurrency: number;
  };
  jobs: {
    /** Seconds a claimed job stays leased; after a crash its jobs wait at most this long. */
    leaseSeconds: number;
    /** Seconds between catch-up polls of the job table. */
    pollSeconds: number;
    /** Database-only jobs (run progress, settling, overrides, timeouts) one node handles at once. */
    concurrency: number;
    /** Run task deliveries one node has in flight at once; they wait on remote services, so never in the slots above. */
    deliveryConcurrency: number;
    /** Of those, at most this many for one organization, so no organization's slow endpoints hold every slot. */
    deliveryPerOrganization: number;
    /** false: this process only serves HTTP (tests that drive jobs by hand). */
    enabled: boolean;
  };
}

export class ConfigError extends Error {}

export const ORGANIZATION_CREATORS = ['anyone', 'site-admin'] as const;
export type OrganizationCreators = (typeof ORGANIZATION_CREATORS)[number];

/**
 * Each organization is a whole tenant (its owners team, its background work): 10 per user is more than a
 * person needs for their teams and environments, and keeps a script from minting tenants by the hundred.
 * The site admin is not counted.
 */
export const DEFAULT_ORGANIZATIONS_PER_USER = 10;

function organizationCreators(raw: string | undefined): OrganizationCreators {
  const value = raw === undefined || raw === '' ? 'anyone' : raw;
  const known = ORGANIZATION_CREATORS.find((creators) => creators === value);
  if (!known) throw new ConfigError(`TEAMSTAGE_ORGANIZATION_CREATORS must be ${ORGANIZATION_CREATORS.join(' or ')}, got "${raw}"`);
  return known;
}

function positiveNumber(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

/** TEAMSTAGE_TRUSTED_PROXIES: CIDRs and addresses, separated by commas or white space. */
function trustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
    if (version === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(`TEAMSTAGE_TRUSTED_PROXIES: ${JSON.stringify(entry)} is not a CIDR or an IP address`);
    }
  }
  return entries;
}

function destinationRules(name: string, raw: string | undefined): DestinationRule[] {
  try {
    return parseDestinationRules(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/** A count of slots: a positive whole number. */
function wholeCount(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  const value = positiveNumber(name, raw, fallback, allowZero);
  if (!Number.isInteger(value)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return value;
}

/** pino's levels: anything else made the logger throw a stack trace at start. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The shortest site token accepted: 32 characters, as `openssl rand -hex 16` or more gives. */
export const SITE_TOKEN_MIN_LENGTH = 32;

/**
 * A secret from the environment or from a file it names (`<NAME>_FILE`, the container convention for
 * secrets mounted as files). One trailing newline is dropped; both at once is a mistake, not a choice.
 */
export function secretSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const fileName = env[`${name}_FILE`];
  if (!fileName) return env[name] || undefined;
  if (env[name]) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
  let content: string;
  try {
    content = fs.readFileSync(fileName, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`${name}_FILE: cannot read ${fileName} (${code}); it must be a file readable by the user running Teamstage`);
  }
  const value = content.replace(/\r?\n$/, '');
  if (value === '') throw new ConfigError(`${name}_FILE: ${fileName} is empty`);
  return value;
}

export const FEATURE_SET_NAMES = ['Free', 'Standard', 'Business'] as const;

/** Both files or neither: half a TLS setting is a typo, not a wish for plain HTTP. */
function tlsFiles(env: NodeJS.ProcessEnv): Config['tls'] {
  const certFile = env.TEAMSTAGE_TLS_CERT || undefined;
  const keyFile = env.TEAMSTAGE_TLS_KEY || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('TEAMSTAGE_TLS_CERT and TEAMSTAGE_TLS_KEY must be set together');
  return { certFile, keyFile };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = positiveNumber('PORT', env.PORT, 8080, true);
  if (!Number.isInteger(port) || port > 65535) throw new ConfigError(`PORT must be an integer 0..65535, got "${env.PORT}"`);
  const databaseUrl = secretSetting(env, 'DATABASE_URL') ?? 'sqlite:./data/teamstage.sqlite';
  if (!/^sqlite:/.test(databaseUrl) && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
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
    agent: {
      phaseTimeoutSeconds: positiveNumber('TEAMSTAGE_AGENT_PHASE_TIMEOUT', env.TEAMSTAGE_AGENT_PHASE_TIMEOUT, 3600),
      planJsonMaxBytes: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_BYTES', env.TEAMSTAGE_PLAN_JSON_MAX_BYTES, 50 * 1024 * 1024),
      // Real plans nest about 10 levels (the fixtures: 7-11) and take 16-21 bytes per value, so a plan of the
      // largest size holds some 3 million values: both defaults leave room, and refuse what only an attack makes.
      planJsonMaxDepth: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_DEPTH', env.TEAMSTAGE_PLAN_JSON_MAX_DEPTH, 128),
      planJsonMaxValues: wholeCount('TEAMSTAGE_PLAN_JSON_MAX_VALUES', env.TEAMSTAGE_PLAN_JSON_MAX_VALUES, 10_000_000),
      logMaxBytes: wholeCount('TEAMSTAGE_LOG_MAX_BYTES', env.TEAMSTAGE_LOG_MAX_BYTES, 10 * 1024 * 1024),
      logUrlTtlSeconds: positiveNumber('TEAMSTAGE_LOG_URL_TTL', env.TEAMSTAGE_LOG_URL_TTL, 86_400),
    },
    pipeline: {
      clientFile: env.TEAMSTAGE_PIPELINE_CLIENT_FILE ? path.resolve(env.TEAMSTAGE_PIPELINE_CLIENT_FILE) : undefined,
      runWaitMaxSeconds: positiveNumber('TEAMSTAGE_RUN_WAIT_MAX', env.TEAMSTAGE_RUN_WAIT_MAX, 30),
      runWaitsPerPrincipal: wholeCount('TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL', env.TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL, 10),
    },
    policies: {
      opaPath: env.TEAMSTAGE_OPA_PATH || undefined,
      timeoutSeconds: positiveNumber('TEAMSTAGE_POLICY_TIMEOUT', env.TEAMSTAGE_POLICY_TIMEOUT, 10),
      memoryMb: Math.max(128, wholeCount('TEAMSTAGE_POLICY_MEMORY_MB', env.TEAMSTAGE_POLICY_MEMORY_MB, 512)),
      concurrency: Math.max(1, wholeCount('TEAMSTAGE_POLICY_CONCURRENCY', env.TEAMSTAGE_POLICY_CONCURRENCY, 2)),
    },
    jobs: {
      leaseSeconds: positiveNumber('TEAMSTAGE_JOB_LEASE', env.TEAMSTAGE_JOB_LEASE, 30),
      pollSeconds: positiveNumber('TEAMSTAGE_JOB_POLL', env.TEAMSTAGE_JOB_POLL, 1),
      concurrency: Math.max(1, Math.floor(positiveNumber('TEAMSTAGE_JOB_CONCURRENCY', env.TEAMSTAGE_JOB_CONCURRENCY, 32))),
      deliveryConcurrency,
      deliveryPerOrganization,
      enabled: env.TEAMSTAGE_JOBS !== 'off',
    },
  };
}
