/** Teams' access to workspaces. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';

/** A team's access to one workspace (migration 034; src/access/workspace-access.ts says what each value grants). */
export interface TeamWorkspacesTable {
  id: string;
  organization_name: string;
  team_id: string;
  workspace_id: string;
  /** `read`, `plan`, `write`, `admin` or `custom`. */
  access: string;
  runs: string;
  variables: string;
  state_versions: string;
  sentinel_mocks: string;
  workspace_locking: Flag;
  run_tasks: Flag;
  policy_overrides: Flag;
  created_at: string;
  updated_at: string;
}
