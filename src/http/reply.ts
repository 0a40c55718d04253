import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Document } from './jsonapi.js';
import { JSONAPI_CONTENT_TYPE } from './jsonapi.js';

export function sendDocument(reply: FastifyReply, status: number, document: Document): FastifyReply {
  return reply.code(status).type(JSONAPI_CONTENT_TYPE).send(document);
}

export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** What a large answer is made of: its size and its pieces, read from storage one at a time. */
export interface StoredBody {
  size: number;
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>;
}

/**
 * Streams a large answer (a plan JSON, a log, an archive) from storage with backpressure: the next piece is
 * read only once the client took the last one (highWaterMark 1), so a client that reads slowly, or not at
 * all, holds about two pieces in memory, never the whole answer.
 */
export function sendStored(reply: FastifyReply, contentType: string, body: StoredBody): FastifyReply {
  const stream = Readable.from(body.pieces, { objectMode: true, highWaterMark: 1 });
  return reply.code(200).type(contentType).header('content-length', body.size).send(stream);
}
