import type { TokensRepository } from './tokens.repository.js';

/** How stale a token's `last-used-at` may get: HCP shows it to the minute, no finer. */
export const TOKEN_USE_INTERVAL_MS = 60_000;

/** Past this many remembered tokens, those not used within the interval are forgotten. */
const REMEMBERED_TOKENS = 10_000;

/**
 * Keeps each token's `last-used-at`, written at most once a minute per token: a client using one token for
 * every request would otherwise turn each read into a write. Two guards: this node remembers when it last
 * wrote each token (no statement at all within the minute), and the UPDATE itself only moves a time older
 * than the interval (so several nodes together still write about once a minute).
 *
 * A failed write (storage full, say) must not fail the request that merely used the token: it is reported
 * and the request goes on.
 */
export class TokenUsage {
  /** Token id → epoch ms of this node's last write, oldest first (re-inserted on each write). */
  private readonly writtenAt = new Map<string, number>();

  constructor(
    private readonly tokens: Pick<TokensRepository, 'touch'>,
    private readonly onError: (error: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  async used(tokenId: string): Promise<void> {
    const now = this.now();
    const last = this.writtenAt.get(tokenId);
    if (last !== undefined && now - last < TOKEN_USE_INTERVAL_MS) return;
    this.remember(tokenId, now);
    try {
      await this.tokens.touch(tokenId, new Date(now).toISOString(), new Date(now - TOKEN_USE_INTERVAL_MS).toISOString());
    } catch (error) {
      this.onError(error);
    }
  }

  private remember(tokenId: string, now: number): void {
    this.writtenAt.delete(tokenId);
    this.writtenAt.set(tokenId, now);
    if (this.writtenAt.size <= REMEMBERED_TOKENS) return;
    for (const [id, at] of this.writtenAt) {
      if (now - at < TOKEN_USE_INTERVAL_MS) break;
      this.writtenAt.delete(id);
    }
  }
}
