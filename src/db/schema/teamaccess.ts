/** Teams' access to workspaces. One area of the database schema; src/db/schema.ts gathers them. */
import type { CustomKeys, WorkspaceAccessLevel } from '../../shared/workspace-access-keys.js';
import type { Flag } from './columns.js';

/** A team's access to one workspace (migration 034; src/access/workspace-access.ts says what each value grants). */
export interface TeamWorkspacesTable {
  id: string;
  organization_name: string;
  team_id: string;
  workspace_id: string;
  /** `read`, `plan`, `write`, `admin` or `custom`. */
  access: WorkspaceAccessLevel;
  runs: CustomKeys['runs'];
  variables: CustomKeys['variables'];
  state_versions: CustomKeys['state-versions'];
  sentinel_mocks: CustomKeys['sentinel-mocks'];
  workspace_locking: Flag;
  run_tasks: Flag;
  policy_overrides: Flag;
  created_at: string;
  updated_at: string;
}
