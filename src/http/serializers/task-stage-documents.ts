import type { OrganizationStanding } from '../../access/organization-standing.js';
import type { Resource } from '../jsonapi.js';

/**
 * `GET /runs/:id?include=task_stages` places the run's task stages in `included`. Their serializer
 * belongs to the task stage side; run serialization asks through this port.
 */
export interface TaskStageDocuments {
  /** The task-stages resources of these runs as `standing` sees them, in run then stage order. */
  forRuns(standing: OrganizationStanding, runIds: readonly string[]): Promise<Resource[]>;
}
