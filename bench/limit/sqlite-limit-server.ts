import http from 'node:http';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { answerStoredBody } from './stored-body-answer.js';
import { LIST_PAGE_SIZE, teamListQuery, teamListWriter } from './team-list-document.js';
import { listenOnLoopback } from '../loopback-server.js';

/**
 * The physical limit of a durable teams API on SQLite (issue 18): bare node:http, better-sqlite3 in WAL
 * mode. GET /api/v2/teams/:id is one primary-key read on the main thread answering the stored bytes;
 * PATCH is one UPDATE handed to a writer thread (sqlite-writer-thread.mjs) that commits every pending write
 * in one transaction with synchronous=FULL, answered once committed. A page of the team list with `q` is
 * one query through the FTS5 trigram index over the names (Teamstage's index kind) returning the matching
 * teams' stored bytes and their count, put in Teamstage's list envelope (team-list-document.ts).
 */
export async function startSqliteLimitServer(file: string) {
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  const read = reader.prepare('select body from limit_teams where id = ?').pluck();
  const search = reader
    .prepare(`select body, count(*) over () from limit_teams where rowid in (select rowid from limit_teams_fts where name like ?) order by name limit ${LIST_PAGE_SIZE}`)
    .raw();
  const writeList = teamListWriter(reader.prepare('select tail from limit_list_envelope').pluck().get() as string);
  const writer = new Worker(new URL('./sqlite-writer-thread.mjs', import.meta.url), { workerData: { file } });
  const waiting = new Map<number, () => void>();
  let seq = 0;
  writer.on('message', (done: number[]) => {
    for (const s of done) {
      waiting.get(s)?.();
      waiting.delete(s);
    }
  });
  const server = http.createServer((request, reply) => {
    const id = request.url!.slice(request.url!.lastIndexOf('/') + 1);
    const answer = (body: Buffer | undefined) => answerStoredBody(reply, body);
    if (request.method === 'PATCH') {
      request.resume();
      request.on('end', () => {
        const body = read.get(id) as Buffer | undefined;
        if (!body) return answer(undefined);
        const s = seq++;
        waiting.set(s, () => answer(body));
        writer.postMessage({ seq: s, id, body });
      });
      return;
    }
    request.resume();
    const q = teamListQuery(request.url!);
    if (q !== undefined) {
      const rows = search.all(`%${q}%`) as Array<[Buffer, number]>;
      writeList(reply, { origin: `http://${request.headers.host}`, q, storedBodies: rows.map((row) => row[0]), total: rows[0]?.[1] ?? 0 });
      return;
    }
    answer(read.get(id) as Buffer | undefined);
  });
  return listenOnLoopback(server, async () => {
    await writer.terminate();
    reader.close();
  });
}
