import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * Test databases start from a copy of one already migrated, instead of running every migration for each test
 * app (hundreds of times per run, each time on both dialects). The copy is the same schema the migrations make:
 * it is made by them, once per migrations' content, and the test app still runs `joinAndMigrate` on its copy,
 * which finds nothing left to do. Tests of migrating itself (an empty or an older database) do not use this.
 */

const dbDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db');

/** A digest of the migrations' source (every file under src/db/migrations, and migrate.ts): a changed migration makes a new template. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  const migrations = path.join(dbDir, 'migrations');
  for (const name of fs.readdirSync(migrations).sort()) hash.update(name).update(fs.readFileSync(path.join(migrations, name)));
  hash.update(fs.readFileSync(path.join(dbDir, 'migrate.ts')));
  return hash.digest('hex').slice(0, 16);
}

let digest: string | undefined;
const templateKey = () => (digest ??= migrationsDigest());

let sqliteTemplate: Promise<string> | undefined;

/**
 * A migrated SQLite file shared by the test processes of this machine (in the temp directory, named by the
 * migrations' digest); made once, under a temporary name and renamed into place, so no process copies a half-made one.
 */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = path.join(os.tmpdir(), `teamstage-test-template-${templateKey()}.sqlite`);
    if (fs.existsSync(file)) return file;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-template-'));
    try {
      const building = path.join(dir, 'db.sqlite');
      const handle = openDatabase(`sqlite:${building}`);
      try {
        await migrateToLatest(handle);
        // Everything into the main file, so that the file alone is the whole database.
        handle.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        await handle.close();
      }
      fs.renameSync(building, file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return file;
  })();
  return sqliteTemplate;
}

/** Writes a migrated SQLite database at `file` (a copy of the template; 0600 like the server's own). */
export async function copyMigratedSqlite(file: string): Promise<void> {
  fs.copyFileSync(await migratedSqliteTemplate(), file);
  fs.chmodSync(file, 0o600);
}

const postgresTemplates = new Map<string, Promise<string>>();

/**
 * A migrated PostgreSQL database marked as a template on the server at `adminUrl`, shared by the run's test
 * processes: the first to need it makes it while holding an advisory lock, the others wait for the lock and find
 * it made (`datistemplate` is set last, so a half-made one from a process that died is dropped and made again).
 */
function migratedPostgresTemplate(adminUrl: string): Promise<string> {
  let template = postgresTemplates.get(adminUrl);
  if (!template) {
    template = (async () => {
      const name = `template_${templateKey()}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
        const found = await admin.query<{ datistemplate: boolean }>('select datistemplate from pg_database where datname = $1', [name]);
        if (found.rows[0]?.datistemplate) return name;
        if (found.rows.length > 0) await admin.query(`drop database ${name} with (force)`);
        await admin.query(`create database ${name}`);
        const handle = openDatabase(adminUrl.replace(/\/[^/]*$/, `/${name}`));
        try {
          await migrateToLatest(handle);
        } finally {
          await handle.close();
        }
        await admin.query(`alter database ${name} is_template true`);
        return name;
      } finally {
        await admin.end();
      }
    })();
    // A failure is not remembered: the next test tries again (and fails loudly the same way if it must).
    template.catch(() => postgresTemplates.delete(adminUrl));
    postgresTemplates.set(adminUrl, template);
  }
  return template;
}

/** The statement that creates database `name` as a migrated copy (run on a connection to `adminUrl`). */
export async function createMigratedPostgresStatement(adminUrl: string, name: string): Promise<string> {
  return `create database ${name} template ${await migratedPostgresTemplate(adminUrl)}`;
}
