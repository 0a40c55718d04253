import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Plan JSON and logs (up to tens of MiB each) move out of one column of `plans` / `applies` into pieces of
 * their own rows, as configuration archives did (migration 010, issue 14), so that storing or serving one
 * never holds it whole in memory (issue 25). Each upload's pieces carry an upload id of their own: they are
 * written one statement at a time (no transaction holds the database while tens of MiB go in), and a
 * phase points at the upload it shows (`json_upload_id`, `log_upload_id`) once the last piece is in.
 * `run_id` only lets the pieces go with their run (a deleted organization takes them along).
 * What was uploaded before becomes a single piece, byte for byte (the plan JSON's text as UTF-8).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const binary = postgres ? 'bytea' : 'blob';
  await db.schema
    .createTable('phase_upload_chunks')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('data', binary, (c) => c.notNull())
    .addPrimaryKeyConstraint('phase_upload_chunks_pk', ['upload_id', 'position'])
    .execute();
  // A cascade from runs finds a run's pieces by this index instead of reading the table.
  await db.schema.createIndex('phase_upload_chunks_run').on('phase_upload_chunks').column('run_id').execute();
  const bytesOf = (column: string) => (postgres ? sql.raw(`convert_to(${column}, 'UTF8')`) : sql.raw(`cast(${column} as blob)`));
  const lengthOf = (column: string) => (postgres ? sql.raw(`octet_length(${column})`) : sql.raw(`length(${column})`));
  for (const table of ['plans', 'applies']) {
    for (const column of ['json_upload_id', 'log_upload_id']) await db.schema.alterTable(table).addColumn(column, 'text').execute();
    for (const column of ['json_bytes', 'log_bytes']) await db.schema.alterTable(table).addColumn(column, 'integer').execute();
    // The upload id of a moved upload: the phase id with a suffix, unique as the phase id is.
    await sql`insert into phase_upload_chunks (upload_id, position, run_id, data)
      select id || '-log', 0, run_id, log from ${sql.table(table)} where log is not null`.execute(db);
    await sql`update ${sql.table(table)} set log_upload_id = id || '-log', log_bytes = ${lengthOf('log')} where log is not null`.execute(db);
    await db.schema.alterTable(table).dropColumn('log').execute();
  }
  await sql`insert into phase_upload_chunks (upload_id, position, run_id, data)
    select id || '-json', 0, run_id, ${bytesOf('json_output')} from plans where json_output is not null`.execute(db);
  await sql`update plans set json_upload_id = id || '-json', json_bytes = ${lengthOf(postgres ? 'convert_to(json_output, \'UTF8\')' : 'cast(json_output as blob)')} where json_output is not null`.execute(db);
  for (const table of ['plans', 'applies']) await db.schema.alterTable(table).dropColumn('json_output').execute();
}
