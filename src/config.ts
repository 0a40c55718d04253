import path from 'node:path';
import type { SqliteSynchronous } from './db/database.js';

/** Every setting Teamstage reads, validated once at start so a typo fails loudly instead of later. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** SQLite only: GROUP and FULL survive power loss (GROUP syncs commits together), NORMAL only process crashes. */
  sqliteSynchronous: SqliteSynchronous;
  baseUrl: string;
  siteToken: string | undefined;
  defaultFeatureSet: string;
  /** Requests per second per principal; 0 disables the limit. */
  rateLimit: number;
  /** Failed authentications per client address (IPv6: per /64) per minute before it gets 429; 0 disables. */
  authFailureLimit: number;
  logLevel: string;
  /** Queries slower than this many milliseconds are logged (SQL only); 0: off. */
  slowQueryMs: number;
  /** Directory for the generated site token (and the SQLite file by default). */
  dataDir: string;
  tasks: {
    callbackTimeoutSeconds: number;
    maxDurationSeconds: number;
    retryDelaysSeconds: number[];
    requestTimeoutSeconds: number;
  };
  jobs: {
    /** Seconds a claimed job stays leased; after a crash its jobs wait at most this long. */
    leaseSeconds: number;
    /** Seconds between catch-up polls of the job table. */
    pollSeconds: number;
    /** Jobs one node handles at once. */
    concurrency: number;
    /** false: this process only serves HTTP (tests that drive jobs by hand). */
    enabled: boolean;
  };
}

export class ConfigError extends Error {}

function positiveNumber(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

export const FEATURE_SET_NAMES = ['Free', 'Standard', 'Business'] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = positiveNumber('PORT', env.PORT, 8080, true);
  if (!Number.isInteger(port) || port > 65535) throw new ConfigError(`PORT must be an integer 0..65535, got "${env.PORT}"`);
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/teamstage.sqlite';
  if (!/^sqlite:/.test(databaseUrl) && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  const baseUrl = (env.TEAMSTAGE_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
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
  const authFailureLimit = positiveNumber('TEAMSTAGE_AUTH_FAILURE_LIMIT', env.TEAMSTAGE_AUTH_FAILURE_LIMIT, 60, true);
  if (!Number.isInteger(authFailureLimit)) throw new ConfigError(`TEAMSTAGE_AUTH_FAILURE_LIMIT must be a whole number, got "${env.TEAMSTAGE_AUTH_FAILURE_LIMIT}"`);

  return {
    host,
    port,
    databaseUrl,
    sqliteSynchronous,
    baseUrl,
    siteToken: env.TEAMSTAGE_SITE_TOKEN || undefined,
    defaultFeatureSet,
    rateLimit: positiveNumber('TEAMSTAGE_RATE_LIMIT', env.TEAMSTAGE_RATE_LIMIT, 30, true),
    authFailureLimit,
    logLevel: env.LOG_LEVEL || 'info',
    slowQueryMs: positiveNumber('TEAMSTAGE_SLOW_QUERY_MS', env.TEAMSTAGE_SLOW_QUERY_MS, 0, true),
    dataDir,
    tasks: {
      callbackTimeoutSeconds: positiveNumber('TEAMSTAGE_TASK_CALLBACK_TIMEOUT', env.TEAMSTAGE_TASK_CALLBACK_TIMEOUT, 600),
      maxDurationSeconds: positiveNumber('TEAMSTAGE_TASK_MAX_DURATION', env.TEAMSTAGE_TASK_MAX_DURATION, 3600),
      retryDelaysSeconds,
      requestTimeoutSeconds: positiveNumber('TEAMSTAGE_TASK_REQUEST_TIMEOUT', env.TEAMSTAGE_TASK_REQUEST_TIMEOUT, 10),
    },
    jobs: {
      leaseSeconds: positiveNumber('TEAMSTAGE_JOB_LEASE', env.TEAMSTAGE_JOB_LEASE, 30),
      pollSeconds: positiveNumber('TEAMSTAGE_JOB_POLL', env.TEAMSTAGE_JOB_POLL, 1),
      concurrency: Math.max(1, Math.floor(positiveNumber('TEAMSTAGE_JOB_CONCURRENCY', env.TEAMSTAGE_JOB_CONCURRENCY, 32))),
      enabled: env.TEAMSTAGE_JOBS !== 'off',
    },
  };
}
