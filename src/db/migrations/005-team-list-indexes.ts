import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * What keeps a team list's cost flat as an organization grows (issue 5):
 * - per-organization team counts maintained by triggers, so `total-count` needs no COUNT over every team;
 * - a substring index for `q`: trigram GIN (pg_trgm) on PostgreSQL when the extension can be created,
 *   an FTS5 trigram table on SQLite;
 * - on PostgreSQL, an index in the code-point order the lists sort by (`collate "C"`), which the unique
 *   constraint in the database's own collation cannot serve.
 * Triggers (not application code) keep the counts, so every writer — including bulk loads — keeps them right.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`create table organization_team_counts (
    organization_name text primary key references organizations (name) on delete cascade,
    teams integer not null default 0,
    visible_teams integer not null default 0
  )`.execute(db);
  await sql`insert into organization_team_counts (organization_name, teams, visible_teams)
    select organization_name, count(*), sum(case when visibility = 'organization' then 1 else 0 end)
    from teams group by organization_name`.execute(db);
  if (postgres) await postgresObjects(db);
  else await sqliteObjects(db);
}

async function sqliteObjects(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger teams_count_insert after insert on teams begin
    insert or ignore into organization_team_counts (organization_name, teams, visible_teams) values (new.organization_name, 0, 0);
    update organization_team_counts
      set teams = teams + 1, visible_teams = visible_teams + (new.visibility = 'organization')
      where organization_name = new.organization_name;
  end`.execute(db);
  await sql`create trigger teams_count_delete after delete on teams begin
    update organization_team_counts
      set teams = teams - 1, visible_teams = visible_teams - (old.visibility = 'organization')
      where organization_name = old.organization_name;
  end`.execute(db);
  await sql`create trigger teams_count_visibility after update of visibility on teams when old.visibility <> new.visibility begin
    update organization_team_counts
      set visible_teams = visible_teams + (new.visibility = 'organization') - (old.visibility = 'organization')
      where organization_name = new.organization_name;
  end`.execute(db);

  await sql`create virtual table teams_name_fts using fts5(name_lower, content = 'teams', content_rowid = 'rowid', tokenize = 'trigram')`.execute(db);
  await sql`insert into teams_name_fts (teams_name_fts) values ('rebuild')`.execute(db);
  await sql`create trigger teams_fts_insert after insert on teams begin
    insert into teams_name_fts (rowid, name_lower) values (new.rowid, new.name_lower);
  end`.execute(db);
  await sql`create trigger teams_fts_delete after delete on teams begin
    insert into teams_name_fts (teams_name_fts, rowid, name_lower) values ('delete', old.rowid, old.name_lower);
  end`.execute(db);
  await sql`create trigger teams_fts_update after update of name_lower on teams begin
    insert into teams_name_fts (teams_name_fts, rowid, name_lower) values ('delete', old.rowid, old.name_lower);
    insert into teams_name_fts (rowid, name_lower) values (new.rowid, new.name_lower);
  end`.execute(db);
}

async function postgresObjects(db: Kysely<unknown>): Promise<void> {
  await sql`create function teams_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into organization_team_counts (organization_name, teams, visible_teams)
          values (new.organization_name, 1, case when new.visibility = 'organization' then 1 else 0 end)
          on conflict (organization_name) do update
          set teams = organization_team_counts.teams + 1,
              visible_teams = organization_team_counts.visible_teams + excluded.visible_teams;
      elsif tg_op = 'DELETE' then
        update organization_team_counts
          set teams = teams - 1, visible_teams = visible_teams - case when old.visibility = 'organization' then 1 else 0 end
          where organization_name = old.organization_name;
      elsif new.visibility <> old.visibility then
        update organization_team_counts
          set visible_teams = visible_teams + case when new.visibility = 'organization' then 1 else -1 end
          where organization_name = new.organization_name;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger teams_count after insert or delete or update of visibility on teams
    for each row execute function teams_count()`.execute(db);
  await sql`create index teams_org_name_code_point on teams (organization_name, name_lower collate "C", id collate "C")`.execute(db);

  // pg_trgm is a contrib extension; a server without it (or a role that may not create it) still works,
  // with `q` scanning the organization's teams. The savepoint keeps the migration's transaction usable.
  await sql`savepoint trigram`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index teams_name_trigram on teams using gin (name_lower gin_trgm_ops)`.execute(db);
    await sql`release savepoint trigram`.execute(db);
  } catch {
    await sql`rollback to savepoint trigram`.execute(db);
  }
}
