import SQLite from 'better-sqlite3';
import pg from 'pg';
import { assertStoredTeamDocument } from './team-list-document.js';

export interface LimitTeam {
  id: string;
  name: string;
  visibility: string;
}

/** What a limit server stores: every team's bytes, with its name (for `q`), and the envelope of a team list. */
export interface LimitData {
  teams: Array<{ id: string; name: string; body: Buffer }>;
  /** The bytes after a one-page team list's data array, with slots (team-list-document.ts). */
  listTail: string;
}

/**
 * The limit's teams: one row per team holding the bytes Teamstage answers for it. `template` is Teamstage's
 * response for one team; every other team's bytes are that response with its id, name and visibility put
 * in (ids and the padded seed names have a fixed width), so both sides send the same bytes.
 */
export function limitBodies(template: Buffer, sample: LimitTeam, teams: LimitTeam[]) {
  const text = template.toString();
  assertStoredTeamDocument(text);
  const visibility = (value: string) => `"visibility":"${value}"`;
  if (!text.includes(visibility(sample.visibility))) throw new Error('the recorded team has no visibility attribute to fill in');
  return teams.map((team) => ({
    id: team.id,
    name: team.name,
    body: Buffer.from(text.split(sample.id).join(team.id).split(sample.name).join(team.name).split(visibility(sample.visibility)).join(visibility(team.visibility))),
  }));
}

/** SQLite: `q` goes through an FTS5 trigram index over the names, the index kind Teamstage uses (its migration 005). */
export function writeSqliteLimitData(file: string, data: LimitData): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.exec('create table if not exists limit_teams (id text primary key, name text not null, body blob not null)');
  db.exec("create virtual table if not exists limit_teams_fts using fts5(name, content = 'limit_teams', content_rowid = 'rowid', tokenize = 'trigram')");
  db.exec('create table if not exists limit_list_envelope (tail text not null)');
  const insert = db.prepare('insert or replace into limit_teams (id, name, body) values (?, ?, ?)');
  db.transaction(() => {
    data.teams.forEach((row) => insert.run(row.id, row.name, row.body));
    db.exec("insert into limit_teams_fts (limit_teams_fts) values ('rebuild')");
    db.exec('delete from limit_list_envelope');
    db.prepare('insert into limit_list_envelope (tail) values (?)').run(data.listTail);
  })();
  db.close();
}

/** PostgreSQL: `q` goes through a pg_trgm GIN index over the names, as Teamstage's (its migration 005). */
export async function writePgLimitData(databaseUrl: string, data: LimitData): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_trgm');
    await client.query('create table if not exists limit_teams (id text primary key, name text not null, body bytea not null)');
    await client.query('create index if not exists limit_teams_name_trigram on limit_teams using gin (name gin_trgm_ops)');
    await client.query('create table if not exists limit_list_envelope (tail text not null)');
    for (let start = 0; start < data.teams.length; start += 1000) {
      const batch = data.teams.slice(start, start + 1000);
      await client.query(
        'insert into limit_teams (id, name, body) select * from unnest($1::text[], $2::text[], $3::bytea[]) on conflict (id) do update set name = excluded.name, body = excluded.body',
        [batch.map((r) => r.id), batch.map((r) => r.name), batch.map((r) => r.body)],
      );
    }
    await client.query('delete from limit_list_envelope');
    await client.query('insert into limit_list_envelope (tail) values ($1)', [data.listTail]);
    // The whole database, Teamstage's tables too, as autovacuum leaves it once it has run after a bulk load:
    // statistics, and each GIN index's pending list merged. Until then every trigram search reads that list
    // through (2.5 ms a query at 10,000 teams, against 0.05 ms after), whichever side runs first.
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}
