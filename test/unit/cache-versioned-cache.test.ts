import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from '../../src/cache/versioned-cache.js';

describe('versioned cache', () => {
  const counting = () => {
    let calls = 0;
    return { compute: async () => `value ${++calls}`, calls: () => calls };
  };

  it('computes once while the version stays, again once it moves', async () => {
    let version = 'a';
    const cache = new VersionedCache<string>(() => version);
    const source = counting();
    assert.equal(await cache.get('k', source.compute), 'value 1');
    assert.equal(await cache.get('k', source.compute), 'value 1');
    version = 'b';
    assert.equal(await cache.get('k', source.compute), 'value 2');
    assert.equal(source.calls(), 2);
  });

  it('never serves a value whose version moved while it was being computed', async () => {
    let version = 'a';
    const cache = new VersionedCache<string>(() => version);
    let calls = 0;
    const racing = async () => {
      calls += 1;
      version = `moved ${calls}`; // a write sent while the rows were being read
      return `value ${calls}`;
    };
    await cache.get('k', racing);
    assert.equal(await cache.get('k', async () => 'fresh'), 'fresh');
  });

  it('caches nothing without a version, and never an undefined result', async () => {
    const none = new VersionedCache<string>(() => undefined);
    const source = counting();
    await none.get('k', source.compute);
    await none.get('k', source.compute);
    assert.equal(source.calls(), 2);
    const cache = new VersionedCache<string>(() => 'a');
    let lookups = 0;
    const missing = async () => {
      lookups += 1;
      return undefined;
    };
    await cache.get('k', missing);
    await cache.get('k', missing);
    assert.equal(lookups, 2);
  });

  it('forgets an entry after its maximum age, and the oldest entry beyond the maximum count', async () => {
    const aged = new VersionedCache<string>(() => 'a', { maxAgeMs: 20 });
    const source = counting();
    await aged.get('k', source.compute);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(await aged.get('k', source.compute), 'value 2');

    const small = new VersionedCache<string>(() => 'a', { maxEntries: 2 });
    const keys = counting();
    await small.get('one', keys.compute);
    await small.get('two', keys.compute);
    await small.get('three', keys.compute);
    assert.equal(await small.get('two', keys.compute), 'value 2');
    assert.equal(await small.get('one', keys.compute), 'value 4', 'the oldest entry was dropped');
  });

  it('peek answers what remember stored under that exact version, aged from when computing began', () => {
    const cache = new VersionedCache<string>(undefined, { maxAgeMs: 1000 });
    cache.remember('k', 'v1', 'stored');
    assert.equal(cache.peek('k', 'v1'), 'stored');
    assert.equal(cache.peek('k', 'v2'), undefined, 'another version');
    cache.remember('old', 'v1', 'began long ago', performance.now() - 2000);
    assert.equal(cache.peek('old', 'v1'), undefined, 'older than the maximum age from its start');
  });
});
