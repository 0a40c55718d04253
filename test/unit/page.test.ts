import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageOf, pageRequest, slicePage } from '../../src/core/page.js';

describe('pages as domains return them (core/page.ts)', () => {
  it('turns a page number and size into the offset of its first item', () => {
    assert.deepEqual(pageRequest(1, 20), { number: 1, size: 20, offset: 0 });
    assert.deepEqual(pageRequest(3, 5), { number: 3, size: 5, offset: 10 });
  });

  it('keeps the items, the total and which page it is', () => {
    assert.deepEqual(pageOf(pageRequest(2, 2), ['c', 'd'], 5), { items: ['c', 'd'], total: 5, number: 2, size: 2 });
  });

  it('slices a list held in memory, and a page past the end is empty with the right total', () => {
    const all = ['a', 'b', 'c', 'd', 'e'];
    assert.deepEqual(slicePage(all, pageRequest(2, 2)), { items: ['c', 'd'], total: 5, number: 2, size: 2 });
    assert.deepEqual(slicePage(all, pageRequest(4, 2)), { items: [], total: 5, number: 4, size: 2 });
  });
});
