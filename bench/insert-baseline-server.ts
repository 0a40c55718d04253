import http from 'node:http';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { RecordedResponse } from './baseline-server.js';
import { listenOnLoopback } from './loopback-server.js';

/**
 * The write baseline: a bare node:http server that does one plain INSERT per request on the same
 * database, with the same driver and settings Teamstage uses, and answers the recorded bytes.
 */
export async function startInsertBaselineServer(databaseUrl: string, response: RecordedResponse) {
  let insert: () => Promise<void>;
  let closeDb: () => Promise<void>;
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec('create table if not exists bench_inserts (id text primary key, name text not null)');
    const statement = db.prepare('insert into bench_inserts (id, name) values (?, ?)');
    insert = async () => {
      statement.run(randomBytes(12).toString('hex'), 'x');
    };
    closeDb = async () => {
      db.close();
    };
  } else {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    await pool.query('create table if not exists bench_inserts (id text primary key, name text not null)');
    insert = async () => {
      await pool.query('insert into bench_inserts (id, name) values ($1, $2)', [randomBytes(12).toString('hex'), 'x']);
    };
    closeDb = () => pool.end();
  }
  const server = http.createServer((request, reply) => {
    request.resume();
    request.on('end', () => {
      insert().then(
        () => {
          reply.writeHead(response.status, { ...response.headers, 'content-length': response.body.length });
          reply.end(response.body);
        },
        () => {
          reply.writeHead(500);
          reply.end();
        },
      );
    });
  });
  return listenOnLoopback(server, closeDb);
}
