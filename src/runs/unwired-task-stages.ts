import type { Resource } from '../http/jsonapi.js';
import { TASK_STAGE_ORDER } from '../runtasks/task-stages.js';
import type { RunsRepository } from './runs.repository.js';
import type { TaskAccessTokens } from './task-access-port.js';
import type { TaskStageDocuments } from './task-stage-documents.js';
import type { TaskStagePort } from './task-stage-port.js';

/**
 * PLACEHOLDERS for the task stage side (src/taskstages, src/delivery), used by services.ts until the
 * real implementations are wired there. With them a run whose workspace has enabled run tasks stops
 * in `<stage>_running` (nothing starts the stage), no task access token is accepted, and included
 * task stages carry no `permissions` / `actions`. Runs without run tasks are unaffected.
 */
export const unwiredTaskStages: TaskStagePort = {
  async start() {},
  async closeOpenStages() {},
};

export const noTaskAccessTokens: TaskAccessTokens = {
  async authorizeDownload() {
    return false;
  },
};

export class BasicTaskStageDocuments implements TaskStageDocuments {
  constructor(private readonly runs: RunsRepository) {}

  async forRuns(_standing: unknown, runIds: readonly string[]): Promise<Resource[]> {
    const rows = await this.runs.taskStageRowsOfRuns(runIds);
    rows.sort((a, b) => runIds.indexOf(a.run_id) - runIds.indexOf(b.run_id) || TASK_STAGE_ORDER.indexOf(a.stage) - TASK_STAGE_ORDER.indexOf(b.stage));
    return rows.map((row) => ({
      id: row.id,
      type: 'task-stages',
      attributes: {
        status: row.status,
        stage: row.stage,
        'status-timestamps': JSON.parse(row.status_timestamps),
        'created-at': row.created_at,
        'updated-at': row.updated_at,
      },
      relationships: {
        run: { data: { id: row.run_id, type: 'runs' } },
        'task-results': { data: row.resultIds.map((id) => ({ id, type: 'task-results' })) },
        'policy-evaluations': { data: [] },
      },
      links: { self: `/api/v2/task-stages/${row.id}` },
    }));
  }
}
