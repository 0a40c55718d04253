import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Runs in the transaction that changes an organization's `default-execution-mode`: the workspaces that follow
 * it (HCP's setting-overwrites) take the new mode. Workspaces sit above organizations, so services.ts plugs
 * their side in.
 */
export type DefaultExecutionModeHook = (trx: Transaction<Database>, organizationName: string, mode: string) => Promise<void>;
