import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import { joinAndMigrate } from '../../src/db/migrate.js';
import { ensureSiteToken } from '../../src/identity/site-token.js';
import { TokensRepository } from '../../src/identity/tokens.repository.js';
import type { Services } from '../../src/services.js';
import type { LazyValidators } from '../../src/http/lazy-validators.js';
import type { LazySerializers } from '../../src/http/lazy-serializers.js';
import { copyMigratedSqlite, createMigratedPostgresStatement } from './migrated-template.js';
import { MockTaskService } from './mock-task-service.js';

/** The dialects this run covers: SQLite always, PostgreSQL when `npm test` started one. */
export function testDialects(): Dialect[] {
  return process.env.TEAMSTAGE_TEST_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface DatabaseOptions {
  /**
   * PostgreSQL only: an ICU locale for the new database (e.g. `en-US`, what most production servers
   * use) instead of the throwaway server's C locale, so text ordering that depends on collation shows.
   */
  postgresIcuLocale?: string;
}

/** A fresh, empty database URL: a temp SQLite file, or a new database on the throwaway server. */
export function freshDatabaseUrl(dialect: Dialect, options: DatabaseOptions = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  return newDatabase(dialect, options, false);
}

/**
 * A fresh database already at the latest schema: a copy of one the migrations made (migrated-template.ts),
 * which is what running them gives, without running them again for every test app.
 */
export function migratedDatabaseUrl(dialect: Dialect, options: DatabaseOptions = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  return newDatabase(dialect, options, true);
}

async function newDatabase(dialect: Dialect, options: DatabaseOptions, migrated: boolean): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-test-'));
    const file = path.join(dir, 'db.sqlite');
    if (migrated) await copyMigratedSqlite(file);
    return { url: `sqlite:${file}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEAMSTAGE_TEST_PG_URL;
  if (!adminUrl) throw new Error('TEAMSTAGE_TEST_PG_URL is not set; run tests through `npm test`');
  const name = `t_${randomBytes(8).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const locale = options.postgresIcuLocale;
  if (locale !== undefined && !/^[A-Za-z0-9-]+$/.test(locale)) throw new Error(`bad ICU locale ${locale}`);
  // An ICU locale needs template0, so that database is migrated by the test app itself.
  await admin.query(
    locale
      ? `create database ${name} template template0 locale_provider icu icu_locale '${locale}' locale 'C.UTF-8'`
      : migrated ? await createMigratedPostgresStatement(adminUrl, name) : `create database ${name}`,
  );
  await admin.end();
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface TestContext {
  app: App;
  services: Services;
  handle: DatabaseHandle;
  config: Config;
  dialect: Dialect;
  siteToken: string;
  close(): Promise<void>;
}

export interface TestAppOptions extends DatabaseOptions {
  /** pino options for the app's logger; by default the app logs nothing. */
  logger?: Record<string, unknown>;
  /** Called with the SQL text of every statement the app runs (statement-count tests). */
  onQuery?: (sql: string) => void;
  /** The app's route-schema compiler (src/http/lazy-validators.ts), for tests that look at what it compiled. */
  validators?: LazyValidators;
  /** The app's response-schema compiler (src/http/lazy-serializers.ts). */
  serializers?: LazySerializers;
}

/**
 * TEAMSTAGE_SIMULATED_PLAN_CHANGES=true: the built-in executor's plans create one simulated resource, so a remote
 * run that is not plan-only waits for its apply and reaches the pre-apply and post-apply stages. Without it a
 * remote run has no changes and ends `planned_and_finished` after its post-plan stage, as on HCP. Tests that
 * drive remote runs through confirm, apply or the apply stages pass this (merged into their env) explicitly.
 */
export const SIMULATED_PLAN_CHANGES: Readonly<Record<string, string>> = { TEAMSTAGE_SIMULATED_PLAN_CHANGES: 'true' };

/** The whole application over a fresh database, with a known site token and no rate limits unless asked. */
export async function createTestApp(dialect: Dialect, env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestContext> {
  const database = await migratedDatabaseUrl(dialect, options);
  const siteToken = `site-${randomBytes(24).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: database.url,
    TEAMSTAGE_RATE_LIMIT: '0',
    TEAMSTAGE_AUTH_FAILURE_LIMIT: '0',
    TEAMSTAGE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-data-')),
    TEAMSTAGE_BASE_URL: 'http://127.0.0.1:8080',
    ...env,
  });
  // The server's own durability mode (group commit on SQLite by default), so tests exercise it.
  const onQuery = options.onQuery;
  const handle = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    ...(onQuery && { onSlowQuery: (sql: string) => onQuery(sql), slowQueryMs: 0 }),
  });
  await joinAndMigrate(handle);
  await ensureSiteToken(new TokensRepository(handle.db), { configured: siteToken, dataDir: config.dataDir });
  const { app, services } = await buildApp({ config, handle, logger: options.logger ?? false, ...(options.validators && { validators: options.validators }), ...(options.serializers && { serializers: options.serializers }) });
  return {
    app,
    services,
    handle,
    config,
    dialect,
    siteToken,
    close: async () => {
      await app.close();
      await handle.close();
      await database.drop();
    },
  };
}

/** A test app and a mock run task service beside it, closed together (runs, workspaces, workspace tasks). */
export async function startAppWithTaskService(dialect: Dialect, env: Record<string, string> = {}): Promise<{ ctx: TestContext; mock: MockTaskService; close(): Promise<void> }> {
  const ctx = await createTestApp(dialect, env);
  const mock = await MockTaskService.start();
  return {
    ctx,
    mock,
    close: async () => {
      await mock.close();
      await ctx.close();
    },
  };
}
