import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Principal } from '../core/principal.js';

/** A just-inserted organization, as the hooks see it inside the creating transaction. */
export interface CreatedOrganization {
  name: string;
  /** The creator's active membership, when a user (not the site admin) created it. */
  creatorMembershipId: string | null;
  /** Who created it (the audit trail's actor of what the hooks make). */
  creator: Principal;
  now: string;
}

/**
 * Runs in the transaction that creates an organization, after its row (and its creator's membership) is
 * written. Organizations own this hook because what an organization needs at birth from domains above it
 * (the owners team, in src/teams) cannot be imported here; services.ts plugs those in.
 */
export type OrganizationCreatedHook = (trx: Transaction<Database>, organization: CreatedOrganization) => Promise<void>;
