import type { ListDocument } from './jsonapi-types.js';

/** What it needs of the console's ApiClient (named structurally: the unit test imports this file with the server's tsconfig). */
export interface ListReader {
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
}

/** Enough for any organization the console is used with, and a bound on the reads one list makes. */
const MAX_PAGES = 50;

/**
 * Every page of a list (`page[size]=100`, following `next-page`), as one list document: for a section that names
 * ids from another list (an access names its workspace by id) and would otherwise miss names past the first page.
 */
export async function getAllPages<A>(api: ListReader, path: string, query: Record<string, string> = {}): Promise<ListDocument<A>> {
  const data: ListDocument<A>['data'] = [];
  let page: number | null = 1;
  for (let read = 0; page !== null && read < MAX_PAGES; read += 1) {
    const document: ListDocument<A> = await api.get<ListDocument<A>>(path, { ...query, 'page[size]': '100', 'page[number]': String(page) });
    data.push(...document.data);
    page = document.meta?.pagination?.['next-page'] ?? null;
  }
  return { data };
}
