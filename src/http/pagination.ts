import { Errors } from '../core/errors.js';
import { pageRequest, type PageRequest } from '../core/page.js';
import type { Query } from './querystring.js';

export type { PageRequest };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

function positiveInteger(raw: string): number | undefined {
  if (!/^\d{1,9}$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

export function parsePage(query: Query): PageRequest {
  const rawSize = query['page[size]'];
  const rawNumber = query['page[number]'];
  let size = DEFAULT_PAGE_SIZE;
  if (rawSize !== undefined && rawSize !== '') {
    const parsed = positiveInteger(rawSize);
    if (parsed === undefined || parsed < 1 || parsed > MAX_PAGE_SIZE) {
      throw Errors.invalidPageSize(MAX_PAGE_SIZE);
    }
    size = parsed;
  }
  let number = 1;
  if (rawNumber !== undefined && rawNumber !== '') {
    const parsed = positiveInteger(rawNumber);
    if (parsed === undefined || parsed < 1) {
      throw Errors.invalidPageNumber();
    }
    number = parsed;
  }
  return pageRequest(number, size);
}

export interface PaginationMeta {
  'current-page': number;
  'page-size': number;
  'prev-page': number | null;
  'next-page': number | null;
  'total-pages': number;
  'total-count': number;
}

export function paginationMeta(page: { number: number; size: number }, totalCount: number): PaginationMeta {
  const totalPages = Math.max(1, Math.ceil(totalCount / page.size));
  return {
    'current-page': page.number,
    'page-size': page.size,
    'prev-page': page.number > 1 ? Math.min(page.number - 1, totalPages) : null,
    'next-page': page.number < totalPages ? page.number + 1 : null,
    'total-pages': totalPages,
    'total-count': totalCount,
  };
}

/** Absolute links with brackets percent-encoded, keeping every other query parameter the caller sent. */
export function paginationLinks(baseUrl: string, path: string, query: Query, meta: PaginationMeta) {
  const link = (pageNumber: number | null): string | null => {
    if (pageNumber === null) return null;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && key !== 'page[number]' && key !== 'page[size]') params.set(key, value);
    }
    params.set('page[number]', String(pageNumber));
    params.set('page[size]', String(meta['page-size']));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  return {
    self: link(meta['current-page']),
    first: link(1),
    prev: link(meta['prev-page']),
    next: link(meta['next-page']),
    last: link(meta['total-pages']),
  };
}
