import { nowIso } from '../clock.js';
import { isUniqueViolation } from '../db/database.js';
import { newId } from './ids.js';
import type { UsersRepository } from './users.repository.js';

/**
 * Service accounts are users that stand for a token rather than a person (`api-team_<suffix>`,
 * `api-org-<name>`). Created on first need; a concurrent creator losing the race reads the winner's row.
 */
export async function ensureServiceAccount(users: UsersRepository, username: string): Promise<string> {
  const existing = await users.findByUsername(username);
  if (existing) return existing.id;
  try {
    const id = newId('user');
    await users.insert({
      id,
      username,
      username_lower: username.toLowerCase(),
      email: null,
      email_lower: null,
      is_service_account: 1,
      created_at: nowIso(),
    });
    return id;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await users.findByUsername(username);
    if (!winner) throw error;
    return winner.id;
  }
}
