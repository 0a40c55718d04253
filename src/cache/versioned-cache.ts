interface Entry<V> {
  version: string;
  storedAt: number;
  value: V;
}

export interface VersionedCacheOptions {
  maxEntries?: number;
  /** Bounds what no write of this process announces (a manual write with psql). */
  maxAgeMs?: number;
}

/**
 * Remembers values computed from the database for as long as a change version says the rows they came
 * from are unchanged. The version is read before computing, so a write sent while the value was being
 * read leaves it stored under a version that has already moved on: it is never served. With no version
 * (several nodes, or no exact signal), nothing is cached and every call computes. `undefined` results
 * (not found) are never stored: they must not fill the cache for whoever sends random keys.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;

  constructor(
    private readonly version: (() => string | undefined) | undefined,
    options: VersionedCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 5000;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
  }

  async get(key: string, compute: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = this.version?.();
    if (version === undefined) return compute();
    const hit = this.peek(key, version);
    if (hit !== undefined) return hit;
    const since = performance.now();
    const value = await compute();
    if (value !== undefined) this.remember(key, version, value, since);
    return value;
  }

  /** The value stored for `key` under exactly `version`, while younger than the maximum age. */
  peek(key: string, version: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.version === version && performance.now() - entry.storedAt < this.maxAgeMs ? entry.value : undefined;
  }

  /**
   * Stores a value computed under `version` (read before computing); its age counts from `since`, when
   * computing began. For callers that compute outside `get` (http/response-cache.ts).
   */
  remember(key: string, version: string, value: V, since: number = performance.now()): void {
    if (this.entries.has(key)) this.entries.delete(key);
    else if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { version, storedAt: since, value });
  }
}
