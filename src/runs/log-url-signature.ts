import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed, expiring `log-read-url` of a plan or apply (HCP's archivist URL, read by terraform and go-tfe
 * without a token, with `offset`/`limit` query parameters that go-tfe rewrites on every read, so everything
 * that authorizes the read is in the path):
 * `/api/v2/signed-logs/<expires>/<generation>.<signature>/<plans|applies>/<phase id>/log`, where the signature
 * is HMAC-SHA256, under the key of that generation, of the phase id, the generation and the expiry. It opens
 * that one log and nothing else, until the expiry or until its key retires, whichever comes first; no other
 * tenant's phase can be named without the key. (The path ends in `/log` like the bearer-token route
 * `/plans/:id/log`, which the console also reads.)
 *
 * Keys rotate (issue 34): generation `g` signs during `[g·lifetime, (g+1)·lifetime)` and verifies for one
 * lifetime more, then is deleted (phase-logs.service.ts), so a leaked URL, or a leaked key, dies with it.
 */
export const LOG_URL_PATH = '/api/v2/signed-logs';

/** Expiries are rounded up to this step, so reads within a few minutes show the same URL (clients compare documents). */
const EXPIRY_STEP_SECONDS = 300;

/** The key generation that signs at `nowSeconds`. */
export function keyGeneration(nowSeconds: number, lifetimeSeconds: number): number {
  return Math.floor(nowSeconds / lifetimeSeconds);
}

/** Whether a URL signed by `generation` may still be opened: its key signs now, or signed during the lifetime before. */
export function generationVerifies(generation: number, nowSeconds: number, lifetimeSeconds: number): boolean {
  const current = keyGeneration(nowSeconds, lifetimeSeconds);
  return generation === current || generation === current - 1;
}

function signatureOf(key: Buffer, generation: number, phaseId: string, expires: number): string {
  return createHmac('sha256', key).update(`log-read-url\n${generation}\n${phaseId}\n${expires}`).digest('base64url');
}

/** The path of a phase's log, valid for at least `ttlSeconds` from `nowSeconds` (unless its key retires first). */
export function signedLogPath(key: Buffer, generation: number, phaseId: string, nowSeconds: number, ttlSeconds: number): string {
  const expires = (Math.floor(nowSeconds / EXPIRY_STEP_SECONDS) + 1) * EXPIRY_STEP_SECONDS + Math.ceil(ttlSeconds);
  const collection = phaseId.startsWith('apply-') ? 'applies' : 'plans';
  return `${LOG_URL_PATH}/${expires}/${generation}.${signatureOf(key, generation, phaseId, expires)}/${collection}/${encodeURIComponent(phaseId)}/log`;
}

/** The generation and signature of a URL's signature segment; undefined when it has no generation (an older URL). */
export function parseSignatureSegment(segment: string): { generation: number; signature: string } | undefined {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{1,100})$/.exec(segment);
  return match ? { generation: Number(match[1]), signature: match[2]! } : undefined;
}

/** Whether the path's parts were signed with `key` (of `generation`) and have not expired (checked in constant time). */
export function isValidLogSignature(key: Buffer, generation: number, phaseId: string, expires: string, signature: string, nowSeconds: number): boolean {
  if (!/^\d{1,12}$/.test(expires) || Number(expires) < nowSeconds) return false;
  const wanted = Buffer.from(signatureOf(key, generation, phaseId, Number(expires)));
  const given = Buffer.from(signature);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
