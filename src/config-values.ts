/**
 * How each setting's text becomes a value, and the names and bounds settings share (config.ts reads the
 * environment with these; a bad value is a ConfigError that stops the start with a clear message).
 */
import { isIP } from 'node:net';
import fs from 'node:fs';
import { parseDestinationRules, type DestinationRule } from './outbound/destination-policy.js';

export class ConfigError extends Error {}

export const ORGANIZATION_CREATORS = ['anyone', 'site-admin'] as const;
export type OrganizationCreators = (typeof ORGANIZATION_CREATORS)[number];

/**
 * Each organization is a whole tenant (its owners team, its background work): 10 per user is more than a
 * person needs for their teams and environments, and keeps a script from minting tenants by the hundred.
 * The site admin is not counted.
 */
export const DEFAULT_ORGANIZATIONS_PER_USER = 10;

export function organizationCreators(raw: string | undefined): OrganizationCreators {
  const value = raw === undefined || raw === '' ? 'anyone' : raw;
  const known = ORGANIZATION_CREATORS.find((creators) => creators === value);
  if (!known) throw new ConfigError(`TEAMSTAGE_ORGANIZATION_CREATORS must be ${ORGANIZATION_CREATORS.join(' or ')}, got "${raw}"`);
  return known;
}

export function positiveNumber(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

/** TEAMSTAGE_TRUSTED_PROXIES: CIDRs and addresses, separated by commas or white space. */
export function trustedProxies(raw: string | undefined): string[] {
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

export function destinationRules(name: string, raw: string | undefined): DestinationRule[] {
  try {
    return parseDestinationRules(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/** A count of slots: a positive whole number. */
export function wholeCount(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  const value = positiveNumber(name, raw, fallback, allowZero);
  if (!Number.isInteger(value)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return value;
}

/** `true` or `false` (unset: false); anything else is a typo, refused rather than read as false. */
export function booleanSetting(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
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

/**
 * A PostgreSQL URL that does not parse (a password with an unescaped `#`, `/` or `?`) would otherwise reach
 * the driver cut in two and fail as "the host name does not resolve" (issue 40). The URL is never repeated
 * in the message: it holds the password.
 */
export function checkPostgresUrl(databaseUrl: string): void {
  let url: URL | undefined;
  try {
    url = new URL(databaseUrl);
  } catch {
    url = undefined;
  }
  if (!url || !url.hostname || url.hash) {
    throw new ConfigError(
      'DATABASE_URL is not a valid PostgreSQL URL (postgres://user:password@host:5432/database): characters such as @ : / # ? % in the user name or password must be percent-encoded',
    );
  }
}

export const FEATURE_SET_NAMES = ['Free', 'Standard', 'Business'] as const;

/** Both files or neither: half a TLS setting is a typo, not a wish for plain HTTP. */
export function tlsFiles(env: NodeJS.ProcessEnv): { certFile: string; keyFile: string } | undefined {
  const certFile = env.TEAMSTAGE_TLS_CERT || undefined;
  const keyFile = env.TEAMSTAGE_TLS_KEY || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('TEAMSTAGE_TLS_CERT and TEAMSTAGE_TLS_KEY must be set together');
  return { certFile, keyFile };
}
