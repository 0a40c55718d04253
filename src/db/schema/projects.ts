/** Projects and teams' access to them. One area of the database schema; src/db/schema.ts gathers them. */
import type { ProjectAccessLevel } from '../../shared/project-access-levels.js';

/** An organization's project (migration 045). */
export interface ProjectsTable {
  id: string;
  organization_name: string;
  name: string;
  name_lower: string;
  description: string;
  /** HCP's auto-destroy-activity-duration (`14d`, `12h`): stored and echoed. */
  auto_destroy_activity_duration: string | null;
  /** Null: follows the organization's default execution mode. */
  default_execution_mode: string | null;
  default_agent_pool_id: string | null;
  /** The organization's name on its default project, null on every other. */
  default_of: string | null;
  created_at: string;
  updated_at: string;
}

/** A team's access to one project (migration 046; src/access/project-access.ts says what each value grants). */
export interface TeamProjectsTable {
  id: string;
  organization_name: string;
  team_id: string;
  project_id: string;
  /** `read`, `write`, `maintain`, `admin` or `custom`. */
  access: ProjectAccessLevel;
  /** JSON: HCP's project-access keys, every one. */
  project_access: string;
  /** JSON: HCP's workspace-access keys, every one. */
  workspace_access: string;
  created_at: string;
  updated_at: string;
}
