import type { ServerResponse } from 'node:http';

/** How both limit servers answer: the team's stored JSON:API bytes, or a bare 404 when there is no such row. */
export function answerStoredBody(reply: ServerResponse, body: Buffer | undefined): void {
  if (!body) {
    reply.writeHead(404).end();
    return;
  }
  reply.writeHead(200, { 'content-type': 'application/vnd.api+json', 'content-length': body.length });
  reply.end(body);
}
