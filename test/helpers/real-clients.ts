import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/db/database.js';
import { Agent, fetch } from 'undici';
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

/**
 * A fresh Teamstage process on a fresh database, with a site token and one user with a token. `tls`: the
 * server serves HTTPS with this certificate (the CA in `ca` signed it).
 */
export async function startRealClientServer(
  dialect: Dialect,
  env: Record<string, string> = {},
  tls?: { certFile: string; keyFile: string; ca: string },
): Promise<RealClientServer> {
  const database = await freshDatabaseUrl(dialect);
  const siteToken = randomBytes(24).toString('hex');
  let server: ServerProcess | undefined;
  const dispatcher = new Agent({ connect: tls ? { ca: tls.ca } : {} });
  try {
    const tlsEnv: Record<string, string> = tls ? { TEAMSTAGE_TLS_CERT: tls.certFile, TEAMSTAGE_TLS_KEY: tls.keyFile } : {};
    server = await startServerProcess({ DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '0', ...tlsEnv, ...env }, tls ? { tlsCa: tls.ca } : {});
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${server!.url}/api/v2${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${siteToken}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(body),
        dispatcher,
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as { data: { id: string; attributes: Record<string, unknown> } };
    };
    const username = 'real-client-user';
    const user = await post('/admin/users', { data: { type: 'users', attributes: { username, email: `${username}@example.test` } } });
    const token = await post(`/users/${user.data.id}/authentication-tokens`, {});
    const started = server;
    return {
      server: started,
      siteToken,
      userToken: token.data.attributes.token as string,
      username,
      close: async () => {
        await started.kill('SIGTERM');
        await database.drop();
      },
    };
  } catch (error) {
    await server?.kill('SIGKILL');
    await database.drop();
    throw error;
  } finally {
    await dispatcher.close();
  }
}
