import SQLite from 'better-sqlite3';
import pg from 'pg';

/**
 * The limit's data: one row per team holding the bytes Teamstage answers for it. `template` is Teamstage's
 * response for one team; every other team's bytes are that response with its id and name put in (same
 * lengths: ids and the padded seed names have a fixed width), so both sides send the same sizes.
 */
export function limitBodies(template: Buffer, sample: { id: string; name: string }, teams: Array<{ id: string; name: string }>) {
  const text = template.toString();
  return teams.map((team) => ({ id: team.id, body: Buffer.from(text.split(sample.id).join(team.id).split(sample.name).join(team.name)) }));
}

export function writeSqliteLimitData(file: string, rows: Array<{ id: string; body: Buffer }>): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.exec('create table if not exists limit_teams (id text primary key, body blob not null)');
  const insert = db.prepare('insert or replace into limit_teams (id, body) values (?, ?)');
  db.transaction(() => rows.forEach((row) => insert.run(row.id, row.body)))();
  db.close();
}

export async function writePgLimitData(databaseUrl: string, rows: Array<{ id: string; body: Buffer }>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('create table if not exists limit_teams (id text primary key, body bytea not null)');
  for (let start = 0; start < rows.length; start += 1000) {
    const batch = rows.slice(start, start + 1000);
    await client.query('insert into limit_teams (id, body) select * from unnest($1::text[], $2::bytea[]) on conflict (id) do update set body = excluded.body', [
      batch.map((r) => r.id),
      batch.map((r) => r.body),
    ]);
  }
  await client.end();
}
