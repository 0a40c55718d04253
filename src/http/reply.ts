import type { FastifyReply } from 'fastify';
import type { Document } from './jsonapi.js';
import { JSONAPI_CONTENT_TYPE } from './jsonapi.js';

export function sendDocument(reply: FastifyReply, status: number, document: Document): FastifyReply {
  return reply.code(status).type(JSONAPI_CONTENT_TYPE).send(document);
}

export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
