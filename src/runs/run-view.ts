import type { OrganizationStanding } from '../access/organization-standing.js';
import type { TaskStageName } from '../db/schema.js';
import type { Page } from '../core/page.js';
import type { ConfigurationVersionRow } from '../workspaces/configuration-versions.repository.js';
import type { UserRow } from '../identity/users.repository.js';
import type { WorkspaceRow } from '../workspaces/workspaces.repository.js';
import type { PhaseRow, RunRow } from './runs.repository.js';

/** Everything a run document shows, gathered by the service. */
export interface RunView {
  row: RunRow;
  planId: string | null;
  applyId: string | null;
  hasChanges: boolean;
  /** The run's task stages in run order. */
  stages: Array<{ id: string; stage: TaskStageName; status: string }>;
  /** A pending run: how many runs of its workspace are ahead of it (run-queue.ts); else 0. */
  positionInQueue: number;
  /** The run's events (HCP's `run-events` relationship), oldest first: its creation is the first. */
  eventIds: string[];
  /** The comments given on the run (its decisions' and its own), oldest first. */
  commentIds: string[];
}

/** The related records asked for (`include=plan,apply,workspace,configuration-version`), each once. */
export interface RunRelated {
  plans: PhaseRow[];
  applies: PhaseRow[];
  workspace: WorkspaceRow | undefined;
  versions: ConfigurationVersionRow[];
  /** `include=created_by,confirmed_by`: the users the runs name. */
  users: UserRow[];
}

/** A run as the caller sees it: its permissions and actions depend on the caller's standing. */
export interface RunResult {
  run: RunView;
  standing: OrganizationStanding;
  related: RunRelated;
}

export interface RunList extends Page<RunView> {
  standing: OrganizationStanding;
  related: RunRelated;
}
