/**
 * A page of a list, as domains return it: the items on the page, how many there are in all, and which page
 * this is. Turning it into links and meta is the HTTP layer's business (src/http/list-document.ts).
 */
export interface PageRequest {
  number: number;
  size: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  number: number;
  size: number;
}

export function pageRequest(number: number, size: number): PageRequest {
  return { number, size, offset: (number - 1) * size };
}

export function pageOf<T>(page: PageRequest, items: T[], total: number): Page<T> {
  return { items, total, number: page.number, size: page.size };
}

/** The requested page of a list held whole in memory. */
export function slicePage<T>(all: readonly T[], page: PageRequest): Page<T> {
  return pageOf(page, all.slice(page.offset, page.offset + page.size), all.length);
}
