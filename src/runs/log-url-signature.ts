import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed, expiring `log-read-url` of a plan or apply (HCP's archivist URL, read by terraform and go-tfe
 * without a token, with `offset`/`limit` query parameters that go-tfe rewrites on every read, so everything
 * that authorizes the read is in the path): `/api/v2/signed-logs/<expires>/<signature>/<plans|applies>/<phase id>/log`,
 * where the signature is HMAC-SHA256, under the server's own key, of the phase id and the expiry. It opens
 * that one log and nothing else, until the expiry; no other tenant's phase can be named without the key.
 * (The path ends in `/log` like the bearer-token route `/plans/:id/log`, which the console also reads.)
 */
export const LOG_URL_PATH = '/api/v2/signed-logs';

/** Expiries are rounded up to this step, so reads within a few minutes show the same URL (clients compare documents). */
const EXPIRY_STEP_SECONDS = 300;

function signatureOf(key: Buffer, phaseId: string, expires: number): string {
  return createHmac('sha256', key).update(`log-read-url\n${phaseId}\n${expires}`).digest('base64url');
}

/** The path of a phase's log, valid for at least `ttlSeconds` from `nowSeconds`. */
export function signedLogPath(key: Buffer, phaseId: string, nowSeconds: number, ttlSeconds: number): string {
  const expires = (Math.floor(nowSeconds / EXPIRY_STEP_SECONDS) + 1) * EXPIRY_STEP_SECONDS + Math.ceil(ttlSeconds);
  const collection = phaseId.startsWith('apply-') ? 'applies' : 'plans';
  return `${LOG_URL_PATH}/${expires}/${signatureOf(key, phaseId, expires)}/${collection}/${encodeURIComponent(phaseId)}/log`;
}

/** Whether the path's parts were signed with `key` and have not expired (checked in constant time). */
export function isValidLogSignature(key: Buffer, phaseId: string, expires: string, signature: string, nowSeconds: number): boolean {
  if (!/^\d{1,12}$/.test(expires) || Number(expires) < nowSeconds) return false;
  const wanted = Buffer.from(signatureOf(key, phaseId, Number(expires)));
  const given = Buffer.from(signature);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
