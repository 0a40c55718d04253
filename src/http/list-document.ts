import type { FastifyRequest } from 'fastify';
import type { Page } from '../core/page.js';
import type { Document, Resource } from './jsonapi.js';
import { paginationLinks, paginationMeta } from './pagination.js';
import type { Query } from './querystring.js';

/** A paginated list document: `data`, optional `included`, `meta.pagination` and absolute `links`. */
export function listDocument<T>(
  request: FastifyRequest,
  baseUrl: string,
  page: Page<T>,
  toResource: (item: T) => Resource,
  included: Resource[] = [],
): Document {
  const meta = paginationMeta(page, page.total);
  const path = request.url.split('?')[0]!;
  const document: Document = {
    data: page.items.map(toResource),
    links: paginationLinks(baseUrl, path, request.query as Query, meta),
    meta: { pagination: meta },
  };
  if (included.length > 0) document.included = included;
  return document;
}
