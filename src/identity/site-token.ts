import fs from 'node:fs';
import path from 'node:path';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { generateToken, hashToken } from './token-secrets.js';
import type { TokensRepository } from './tokens.repository.js';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE } from '../db/private-files.js';

export function siteTokenFile(dataDir: string): string {
  return path.join(dataDir, 'site-token');
}

async function storeSiteToken(tokens: TokensRepository, secret: string): Promise<void> {
  await tokens.insert({
    id: newId('at'),
    kind: 'site',
    token_hash: hashToken(secret),
    user_id: null,
    organization_name: null,
    team_id: null,
    is_legacy: 0,
    description: 'site admin token',
    created_by_id: null,
    created_at: nowIso(),
    expired_at: null,
    last_used_at: null,
    acts_as_person: 1,
  });
}

function writeTokenFile(dataDir: string, secret: string): string {
  ensurePrivateDirectory(dataDir);
  const file = siteTokenFile(dataDir);
  fs.writeFileSync(file, `${secret}\n`, { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(file, 0o600);
  return file;
}

/** A generated token left in the data directory stops working once a configured one replaces it. */
function removeStaleTokenFile(dataDir: string, configured: string): void {
  const file = siteTokenFile(dataDir);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() !== configured) fs.rmSync(file, { force: true });
}

/**
 * A site token from TEAMSTAGE_SITE_TOKEN becomes the only site token; without it, one is
 * generated on first start only. Returns the secret when one was generated, so the caller prints it once.
 */
export async function ensureSiteToken(
  tokens: TokensRepository,
  options: { configured?: string; dataDir: string },
): Promise<{ generated?: string; file?: string }> {
  if (options.configured) {
    const existing = await tokens.findByHash(hashToken(options.configured));
    if (!existing || existing.kind !== 'site') {
      await tokens.deleteSiteTokens();
      await storeSiteToken(tokens, options.configured);
    }
    removeStaleTokenFile(options.dataDir, options.configured);
    return {};
  }
  if (await tokens.hasSiteToken()) return {};
  const secret = generateToken();
  // The file first: a token stored but never written anywhere would lock the operator out for good.
  const file = writeTokenFile(options.dataDir, secret);
  await storeSiteToken(tokens, secret);
  return { generated: secret, file };
}

/** Replaces every site token with a new one and writes it to the data directory. */
export async function rotateSiteToken(tokens: TokensRepository, dataDir: string): Promise<{ secret: string; file: string }> {
  const secret = generateToken();
  const file = writeTokenFile(dataDir, secret); // first, as above
  await tokens.deleteSiteTokens();
  await storeSiteToken(tokens, secret);
  return { secret, file };
}
