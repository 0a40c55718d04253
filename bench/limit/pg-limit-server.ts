import http from 'node:http';
import pg from 'pg';
import { answerStoredBody } from './stored-body-answer.js';
import { LIST_PAGE_SIZE, teamListQuery, teamListWriter } from './team-list-document.js';
import { listenOnLoopback } from '../loopback-server.js';

/**
 * The physical limit on PostgreSQL (issue 18): bare node:http and `pg`. GET is one prepared primary-key
 * query answering the stored bytes, PATCH one prepared UPDATE (PostgreSQL's commit is durable before
 * anyone sees it), answered with the stored bytes. A page of the team list with `q` is one prepared query
 * through a pg_trgm GIN index over the names (Teamstage's index kind) returning the matching teams' stored
 * bytes and their count, put in Teamstage's list envelope (team-list-document.ts).
 */
export async function startPgLimitServer(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const writeList = teamListWriter((await pool.query('select tail from limit_list_envelope')).rows[0].tail);
  const search = `select body, count(*) over () as total from limit_teams where name like $1 order by name collate "C" limit ${LIST_PAGE_SIZE}`;
  const server = http.createServer((request, reply) => {
    const id = request.url!.slice(request.url!.lastIndexOf('/') + 1);
    const answer = (body: Buffer | undefined) => answerStoredBody(reply, body);
    const fail = () => reply.writeHead(500).end();
    const q = teamListQuery(request.url!);
    request.resume();
    request.on('end', () => {
      if (request.method === 'PATCH') {
        pool
          .query({ name: 'limit-update', text: 'update limit_teams set body = body where id = $1 returning body', values: [id] })
          .then((result) => answer(result.rows[0]?.body), fail);
      } else if (q !== undefined) {
        pool.query({ name: 'limit-search', text: search, values: [`%${q}%`] }).then((result) => {
          const page = { origin: `http://${request.headers.host}`, q, storedBodies: result.rows.map((row) => row.body), total: Number(result.rows[0]?.total ?? 0) };
          writeList(reply, page);
        }, fail);
      } else {
        pool.query({ name: 'limit-read', text: 'select body from limit_teams where id = $1', values: [id] }).then((result) => answer(result.rows[0]?.body), fail);
      }
    });
  });
  return listenOnLoopback(server, () => pool.end());
}
