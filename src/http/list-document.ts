import type { FastifyRequest } from 'fastify';
import type { Document, Resource } from './jsonapi.js';
import { paginationLinks, paginationMeta, type PageRequest } from './pagination.js';
import type { Query } from './querystring.js';

/** A paginated list document: `data`, optional `included`, `meta.pagination` and absolute `links`. */
export function listDocument(
  request: FastifyRequest,
  baseUrl: string,
  page: PageRequest,
  result: { data: Resource[]; total: number; included?: Resource[] },
): Document {
  const meta = paginationMeta(page, result.total);
  const path = request.url.split('?')[0]!;
  const document: Document = {
    data: result.data,
    links: paginationLinks(baseUrl, path, request.query as Query, meta),
    meta: { pagination: meta },
  };
  if (result.included && result.included.length > 0) document.included = result.included;
  return document;
}
