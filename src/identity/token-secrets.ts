import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens look like HCP Terraform's (`<14>.atlasv1.<67>`) so clients that sniff the shape accept them.
 * 48 random bytes (384 bits) back every token; only a SHA-256 digest is stored. A fast hash is right here:
 * the input has full entropy, so there is nothing for a slow hash to protect against.
 */
export function generateToken(): string {
  const raw = randomBytes(48).toString('base64url').replace(/[-_]/g, 'x');
  return `${raw.slice(0, 14)}.atlasv1.${raw.slice(14)}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented token against a stored digest. */
export function tokenMatchesHash(token: string, storedHash: string): boolean {
  return digestMatchesHash(hashToken(token), storedHash);
}

/** `tokenMatchesHash` for a token whose digest (`hashToken`) was already computed to find its row. */
export function digestMatchesHash(digest: string, storedHash: string): boolean {
  const presented = Buffer.from(digest, 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
