import { VersionedCache } from './versioned-cache.js';

/** A lookup whose first argument is its key (a token's digest, say). */
type KeyedLookup<A extends [string, ...unknown[]], V> = (...args: A) => Promise<V | undefined>;

/**
 * A wrapper that keeps a lookup's results while the database's change version is unchanged
 * (versioned-cache.ts). The domains own their lookups and accept such a wrapper at wiring time
 * (services.ts); they never import this folder.
 */
export function remembered(changeVersion: () => string | undefined) {
  return <A extends [string, ...unknown[]], V>(lookUp: KeyedLookup<A, V>): KeyedLookup<A, V> => {
    const cache = new VersionedCache<V>(changeVersion);
    return (...args) => cache.get(args[0], () => lookUp(...args));
  };
}
