import type { Kysely } from 'kysely';
import { requireAccess } from '../access/require-access.js';
import type { WorkspaceContext } from '../access/workspace-gate.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { Database } from '../db/schema.js';
import type { TagRow, WorkspaceTagsRepository } from './workspace-tags.repository.js';

/** A tag as clients name it: by id (`tag-…`), or by name (made in the organization when new). */
export interface TagReference {
  id?: string;
  name?: string;
}

/** HCP's tag names: letters, numbers, colons, hyphens and underscores, 1 to 255 characters. */
const TAG_NAME = /^[A-Za-z0-9:_-]{1,255}$/;

export function checkTagNames(names: readonly string[], pointer: string): void {
  for (const name of names) if (!TAG_NAME.test(name)) throw Errors.invalidTagName(pointer);
}

/** The tags the references name, made where named and new; an unknown id is a 422. */
export async function resolveTags(
  trx: Kysely<Database>,
  tags: WorkspaceTagsRepository,
  organizationName: string,
  references: readonly TagReference[],
  pointer: string,
): Promise<TagRow[]> {
  const ids = references.filter((ref) => ref.id).map((ref) => ref.id!);
  const names = references.filter((ref) => !ref.id && ref.name !== undefined).map((ref) => ref.name!);
  if (references.some((ref) => !ref.id && ref.name === undefined)) throw Errors.invalidTagName(pointer);
  checkTagNames(names, pointer);
  const byId = new Map((await tags.byIds(trx, organizationName, ids)).map((tag) => [tag.id, tag]));
  if (ids.some((id) => !byId.has(id))) throw Errors.tagNotFound(pointer);
  const named = new Map((await tags.ensureNamed(trx, organizationName, names, nowIso())).map((tag) => [tag.name, tag]));
  return references.map((ref) => (ref.id ? byId.get(ref.id)! : named.get(ref.name!)!));
}

/** `GET|POST|DELETE /workspaces/:id/relationships/tags`. */
export class WorkspaceTagsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tags: WorkspaceTagsRepository,
  ) {}

  async list(found: WorkspaceContext): Promise<TagRow[]> {
    requireAccess(found.context.standing, 'workspace', 'read', {});
    return this.tags.tagsOf(found.workspace.id);
  }

  async add(found: WorkspaceContext, references: readonly TagReference[]): Promise<void> {
    requireAccess(found.context.standing, 'workspace', 'manage', {});
    if (references.length === 0) throw Errors.noTagsGiven();
    await this.db.transaction().execute(async (trx) => {
      const resolved = await resolveTags(trx, this.tags, found.workspace.organization_name, references, '/data');
      await this.tags.attach(trx, found.workspace.id, resolved);
    });
  }

  /** Removing a tag the workspace does not have changes nothing (HCP answers 204 too). */
  async remove(found: WorkspaceContext, references: readonly TagReference[]): Promise<void> {
    requireAccess(found.context.standing, 'workspace', 'manage', {});
    if (references.length === 0) throw Errors.noTagsGiven();
    await this.db.transaction().execute(async (trx) => {
      const current = await this.tags.tagsOf(found.workspace.id, trx);
      const removed = current.filter((tag) => references.some((ref) => ref.id === tag.id || (!ref.id && ref.name === tag.name)));
      await this.tags.detach(trx, found.workspace.id, removed.map((tag) => tag.id));
    });
  }
}
