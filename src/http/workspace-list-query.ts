import { Errors } from '../core/errors.js';
import type { WorkspaceListFilter } from '../workspaces/workspaces.repository.js';
import { listParameter, type Query } from './querystring.js';

const SORTS = ['name', '-name', 'current-run.created-at', '-current-run.created-at'];

/** HCP's workspace list parameters: search[name], search[wildcard-name], search[tags], search[exclude-tags], filter[current-run][status], filter[project][id], sort. */
export function workspaceListFilter(query: Query): Omit<WorkspaceListFilter, 'organizationName'> {
  const sort = query.sort || undefined;
  if (sort !== undefined && !SORTS.includes(sort)) throw Errors.invalidWorkspaceSort(SORTS.join(', '));
  const statuses = listParameter(query['filter[current-run][status]']);
  const tags = listParameter(query['search[tags]']);
  const excludeTags = listParameter(query['search[exclude-tags]']);
  return {
    search: query['search[name]'] || undefined,
    wildcardName: query['search[wildcard-name]'] || undefined,
    tags: tags.length > 0 ? tags : undefined,
    excludeTags: excludeTags.length > 0 ? excludeTags : undefined,
    currentRunStatuses: statuses.length > 0 ? statuses : undefined,
    projectId: query['filter[project][id]'] || undefined,
    sort: sort === undefined ? undefined : { by: sort.replace(/^-/, '') as 'name' | 'current-run.created-at', descending: sort.startsWith('-') },
  };
}
