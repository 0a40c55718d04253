import type { Kysely, Transaction } from 'kysely';
import type { Database, ProjectsTable } from '../db/schema.js';
import { newId } from '../core/ids.js';
import type { OrganizationCreatedHook } from '../organizations/organization-created-hook.js';
import { DEFAULT_PROJECT_NAME } from './project.js';

/** The default project of an organization as a row (`default_of` marks it; migration 045). */
export function defaultProjectRow(organizationName: string, now: string): ProjectsTable {
  return {
    id: newId('prj'),
    organization_name: organizationName,
    name: DEFAULT_PROJECT_NAME,
    name_lower: DEFAULT_PROJECT_NAME.toLowerCase(),
    description: '',
    auto_destroy_activity_duration: null,
    default_execution_mode: null,
    default_agent_pool_id: null,
    default_of: organizationName,
    created_at: now,
    updated_at: now,
  };
}

/** HCP: every organization is born with its "Default Project" (made in the creating transaction). */
export function createDefaultProject(): OrganizationCreatedHook {
  return async (trx: Transaction<Database>, organization) => {
    await trx.insertInto('projects').values(defaultProjectRow(organization.name, organization.now)).execute();
  };
}

/**
 * The organization's default project, made if missing: an organization an older node created during a rolling
 * upgrade has none until here. Two nodes racing both read the winner's (`default_of` is unique).
 */
export async function ensureDefaultProject(db: Kysely<Database>, organizationName: string, now: string): Promise<ProjectsTable> {
  const found = await db.selectFrom('projects').selectAll().where('default_of', '=', organizationName).executeTakeFirst();
  if (found) return found;
  await db.insertInto('projects').values(defaultProjectRow(organizationName, now)).onConflict((oc) => oc.column('default_of').doNothing()).execute();
  return db.selectFrom('projects').selectAll().where('default_of', '=', organizationName).executeTakeFirstOrThrow();
}
