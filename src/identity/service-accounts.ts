import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import { newId, idSuffix } from '../core/ids.js';
import { serviceAccountName, serviceAccountOwnerKey, type ServiceAccountOwner } from './service-account-names.js';
import type { UsersRepository } from './users.repository.js';

/**
 * Service accounts are users that stand for a token rather than a person (`api-team_<suffix>`,
 * `api-org-<name>`, `api-site-admin`). Created on first need and found again by their flag and owner, never
 * by name: a person who took the name before it was reserved is never adopted. A concurrent creator losing
 * the race reads the winner's row.
 */
export async function ensureServiceAccount(users: UsersRepository, owner: ServiceAccountOwner): Promise<string> {
  const key = serviceAccountOwnerKey(owner);
  const existing = await users.findServiceAccount(key);
  if (existing) return existing.id;
  const name = serviceAccountName(owner);
  for (let attempt = 0; ; attempt++) {
    const id = newId('user');
    // Only a user from before the prefixes were reserved can hold the name: then the account gets another.
    const username = attempt === 0 ? name : `${name}-${idSuffix(id).slice(0, 6)}`;
    try {
      await users.insert({
        id,
        username,
        username_lower: username.toLowerCase(),
        email: null,
        email_lower: null,
        is_service_account: 1,
        service_account_owner: key,
        created_at: nowIso(),
      });
      return id;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const winner = await users.findServiceAccount(key);
      if (winner) return winner.id;
      if (attempt >= 3) throw error;
    }
  }
}
