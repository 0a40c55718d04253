/**
 * The limit of a start (bench/start-scenario.ts): a bare Node process that opens the same database, reads one
 * row of it, and answers GET /readyz with node:http. Plain JavaScript, so that nothing compiles it first.
 * Arguments: the database URL, the port.
 */
import http from 'node:http';

const [databaseUrl, port] = process.argv.slice(2);
if (databaseUrl.startsWith('sqlite:')) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(databaseUrl.slice('sqlite:'.length));
  db.pragma('journal_mode = WAL');
  db.prepare('select count(*) from teams').get();
} else {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('select count(*) from teams');
}
http.createServer((_request, response) => response.end('ok')).listen(Number(port), '127.0.0.1');
