import { requireAccess } from '../access/require-access.js';
import type { WorkspaceContext } from '../access/workspace-gate.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { RemoteStateConsumersRepository } from './remote-state-consumers.repository.js';
import { COLUMNS, type WorkspaceRow } from './workspaces.repository.js';

/**
 * `GET|POST|PATCH|DELETE /workspaces/:id/relationships/remote-state-consumers`: read with the workspace,
 * changed by whoever may manage it. Every consumer must be a workspace of the same organization (422).
 */
export class RemoteStateConsumersService {
  constructor(private readonly consumers: RemoteStateConsumersRepository) {}

  async list(found: WorkspaceContext, page: PageRequest): Promise<Page<WorkspaceRow>> {
    requireAccess(found.context.standing, 'workspace', 'read', {});
    const { rows, total } = await this.consumers.list(found.workspace.id, COLUMNS, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  async change(found: WorkspaceContext, how: 'add' | 'remove' | 'replace', ids: string[]): Promise<void> {
    requireAccess(found.context.standing, 'workspace', 'manage', {});
    const unique = [...new Set(ids)];
    if (how !== 'remove') {
      const existing = await this.consumers.existingIn(found.workspace.organization_name, unique);
      const missing = unique.findIndex((id) => !existing.has(id));
      if (missing >= 0) throw Errors.consumerNotFound(`/data/${ids.indexOf(unique[missing]!)}/id`);
    }
    const now = nowIso();
    if (how === 'add') await this.consumers.add(found.workspace.id, unique, now);
    else if (how === 'remove') await this.consumers.remove(found.workspace.id, unique);
    else await this.consumers.replace(found.workspace.id, unique, now);
  }
}
