import { hash } from 'node:crypto';
import { isIPv6 } from 'node:net';

export interface AuthFailureLimitOptions {
  /** Failed authentications one client address may make per window before it is refused. */
  limit: number;
  windowMs?: number;
  /** Addresses tracked at once; beyond, the oldest window is forgotten (memory stays bounded under spoofing). */
  maxAddresses?: number;
  /** Tokens remembered as recently valid (by digest), which an address over its budget may still use. */
  maxTrustedTokens?: number;
}

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Failed authentication per client address, in fixed windows: once an address has failed `limit` times
 * in a window, it is refused for the rest of that window before anything touches the database, so a
 * flood of made-up tokens costs a map lookup each instead of a query.
 *
 * Written here rather than with @fastify/rate-limit, which counts every request it sees and cannot tell
 * whether an address is over its budget without counting one more: this limit counts failures only,
 * which are known after authentication, and refuses before it.
 *
 * A token that authenticated recently on this node is let through even from a refused address, so a
 * valid user behind the same NAT or proxy as an attacker keeps working; only its own failure (revoked,
 * expired) makes it a stranger again. A token never seen here waits for the window to end.
 */
export class AuthFailureLimit {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly maxTrustedTokens: number;
  private readonly windows = new Map<string, Window>();
  /** Digests of recently valid tokens, least recently used first. */
  private readonly trusted = new Set<string>();

  constructor(options: AuthFailureLimitOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.maxTrustedTokens = options.maxTrustedTokens ?? 10_000;
  }

  /**
   * Milliseconds until `address` may try again with this token; 0 when it may try now. Runs before every
   * request (http/early-refusal.ts), so the token is asked for only when the address is over its budget.
   */
  retryAfterMs(address: string, token: string | undefined | (() => string | undefined), now = Date.now()): number {
    if (this.windows.size === 0) return 0;
    this.forgetEnded(now);
    const window = this.windows.get(addressKey(address));
    if (!window || window.failures < this.limit) return 0;
    const remaining = window.startedAt + this.windowMs - now;
    if (remaining <= 0) return 0;
    const presented = typeof token === 'function' ? token() : token;
    return presented !== undefined && this.trusted.has(digest(presented)) ? 0 : remaining;
  }

  failed(address: string, token: string | undefined, now = Date.now()): void {
    if (token !== undefined) this.trusted.delete(digest(token));
    const key = addressKey(address);
    const window = this.windows.get(key);
    if (window && now < window.startedAt + this.windowMs) {
      window.failures += 1;
      return;
    }
    this.windows.delete(key); // re-inserted last: the Map's order is the order windows started in
    this.forgetEnded(now);
    if (this.windows.size >= this.maxAddresses) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { startedAt: now, failures: 1 });
  }

  /** Addresses with a window still running (what this limit holds in memory). */
  trackedAddresses(): number {
    return this.windows.size;
  }

  /** Drops ended windows, oldest first, so that a quiet limit costs nothing per request (`size` is 0). */
  private forgetEnded(now: number): void {
    for (const [key, window] of this.windows) {
      if (now < window.startedAt + this.windowMs) return;
      this.windows.delete(key);
    }
  }

  succeeded(token: string): void {
    const key = digest(token);
    this.trusted.delete(key);
    if (this.trusted.size >= this.maxTrustedTokens) this.trusted.delete(this.trusted.values().next().value!);
    this.trusted.add(key);
  }
}

function digest(token: string): string {
  return hash('sha256', token, 'base64');
}

/**
 * The unit an attacker pays for: an IPv4 address, or an IPv6 /64 (one subscriber's usual allocation, in
 * which anyone may pick a fresh address per request).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.replace(/%.*$/, '').split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // A trailing dotted IPv4 part stands for two groups.
  const width = (list: string[]) => list.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const left = groups(head);
  const right = groups(tail);
  const full = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
