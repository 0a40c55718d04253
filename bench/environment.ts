import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { Dialect } from '../src/db/database.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test/helpers/postgres-server.js';

/** Fresh databases for benchmark runs: SQLite files in a temp dir, databases on one throwaway PostgreSQL. */
export class BenchDatabases {
  private postgres: ThrowawayPostgres | undefined;
  private readonly dirs: string[] = [];

  async fresh(dialect: Dialect): Promise<string> {
    if (dialect === 'sqlite') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-bench-'));
      this.dirs.push(dir);
      return `sqlite:${path.join(dir, 'bench.sqlite')}`;
    }
    this.postgres ??= await startThrowawayPostgres();
    const name = `bench_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: this.postgres.adminUrl });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    return this.postgres.urlFor(name);
  }

  /** CPU time PostgreSQL has used so far, in ms; undefined for SQLite, which runs inside the server. */
  cpuProbe(dialect: Dialect): (() => number) | undefined {
    const postgres = this.postgres;
    return dialect === 'postgres' && postgres ? () => postgres.cpuMs() : undefined;
  }

  async close(): Promise<void> {
    await this.postgres?.stop();
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}
