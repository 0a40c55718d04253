/** The console's every-page list read (src/web/api/all-pages.ts): follows `next-page` to the end, and stops at its bound. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAllPages } from '../../src/web/api/all-pages.js';

/** The client's type, named through the function (the client's module is the browser's, outside the server's tsconfig). */
type ApiClient = Parameters<typeof getAllPages>[0];

function pagedApi(pages: number, reads: Record<string, string | undefined>[]): ApiClient {
  return {
    get: async (_path: string, query?: Record<string, string | undefined>) => {
      reads.push(query ?? {});
      const number = Number(query?.['page[number]']);
      return { data: [{ id: `item-${number}`, type: 'things', attributes: {} }], meta: { pagination: { 'next-page': number < pages ? number + 1 : null } } };
    },
  } as unknown as ApiClient;
}

test('reads every page in order with the filter kept, 100 a page', async () => {
  const reads: Record<string, string | undefined>[] = [];
  const all = await getAllPages(pagedApi(3, reads), '/things', { 'filter[team][id]': 'team-1' });
  assert.deepEqual(all.data.map((item) => item.id), ['item-1', 'item-2', 'item-3']);
  assert.deepEqual(reads.map((query) => [query['page[number]'], query['page[size]'], query['filter[team][id]']]), [['1', '100', 'team-1'], ['2', '100', 'team-1'], ['3', '100', 'team-1']]);
});

test('a list that never ends is read to the bound, not forever', async () => {
  const reads: Record<string, string | undefined>[] = [];
  const all = await getAllPages(pagedApi(Number.POSITIVE_INFINITY, reads), '/things');
  assert.equal(reads.length, 50);
  assert.equal(all.data.length, 50);
});
