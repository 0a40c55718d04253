import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/db/database.js';
import { HttpClient } from './http-client.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { freshDatabaseUrl } from './test-app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where scripts/build-real-clients.sh puts the real clients (bin/tofu, bin/go-tfe.test, gotfe-src). */
export function realClientsDir(): string {
  return process.env.TEAMSTAGE_REALCLIENTS_DIR ?? path.join(os.homedir(), '.cache', 'teamstage-realclients');
}

/** Runs the build script: a few seconds when the pinned builds are already there (.ci/run builds them first). */
export async function buildRealClients(...clients: Array<'go-tfe' | 'tofu'>): Promise<void> {
  const child = spawn('bash', [path.join(root, 'scripts/build-real-clients.sh'), ...clients], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`scripts/build-real-clients.sh exited with ${code}:\n${output}`);
}

export interface RealClientServer {
  server: ServerProcess;
  siteToken: string;
  /** A user's token: go-tfe's tests and the provider act as this user, who creates organizations. */
  userToken: string;
  username: string;
  close(): Promise<void>;
}

/** A fresh Teamstage process on a fresh database, with a site token and one user with a token. */
export async function startRealClientServer(dialect: Dialect, env: Record<string, string> = {}): Promise<RealClientServer> {
  const database = await freshDatabaseUrl(dialect);
  const siteToken = randomBytes(24).toString('hex');
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '0', ...env });
    const client = new HttpClient(server.url.replace(/^https:/, 'http:'), 1);
    const username = 'real-client-user';
    try {
      const user = await client.request('POST', '/admin/users', siteToken, {
        data: { type: 'users', attributes: { username, email: `${username}@example.test` } },
      });
      if (user.status !== 201) throw new Error(`create user: ${user.status} ${user.text}`);
      const token = await client.request('POST', `/users/${user.body.data.id}/authentication-tokens`, siteToken, {});
      if (token.status !== 201) throw new Error(`create token: ${token.status} ${token.text}`);
      const started = server;
      return {
        server: started,
        siteToken,
        userToken: token.body.data.attributes.token as string,
        username,
        close: async () => {
          await started.kill('SIGTERM');
          await database.drop();
        },
      };
    } finally {
      await client.close();
    }
  } catch (error) {
    await server?.kill('SIGKILL');
    await database.drop();
    throw error;
  }
}
