import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { answerStoredBody } from './stored-body-answer.js';

/**
 * The physical limit on PostgreSQL (issue 18): bare node:http and `pg`. GET is one prepared primary-key
 * query answering the stored bytes, PATCH one prepared UPDATE (PostgreSQL's commit is durable before
 * anyone sees it), answered with the stored bytes.
 */
export async function startPgLimitServer(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const server = http.createServer((request, reply) => {
    const id = request.url!.slice(request.url!.lastIndexOf('/') + 1);
    const answer = (body: Buffer | undefined) => answerStoredBody(reply, body);
    const fail = () => reply.writeHead(500).end();
    request.resume();
    request.on('end', () => {
      if (request.method === 'PATCH') {
        pool
          .query({ name: 'limit-update', text: 'update limit_teams set body = body where id = $1 returning body', values: [id] })
          .then((result) => answer(result.rows[0]?.body), fail);
      } else {
        pool.query({ name: 'limit-read', text: 'select body from limit_teams where id = $1', values: [id] }).then((result) => answer(result.rows[0]?.body), fail);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
