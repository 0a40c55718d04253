import type { Resource } from '../api/jsonapi-types';

/** Projects and team access to them as /api/v2 serializes them (projects and team-projects serializers). */
export interface ProjectAttributes {
  name: string;
  description: string;
  'workspace-count': number;
  'team-count': number;
  'default-execution-mode': string;
  permissions?: Record<string, boolean>;
}

export interface TeamProjectAttributes {
  access: ProjectAccessLevel;
  'project-access': Record<string, string>;
  'workspace-access': Record<string, string | boolean>;
}

/** HCP's project access levels (custom is kept as it is; the console sets the fixed ones). */
export const PROJECT_ACCESS_LEVELS = ['read', 'write', 'maintain', 'admin'] as const;
export type ProjectAccessLevel = (typeof PROJECT_ACCESS_LEVELS)[number] | 'custom';

/** What each fixed level gives, in the words HCP uses. */
export const LEVEL_MEANING: Record<(typeof PROJECT_ACCESS_LEVELS)[number], string> = {
  read: 'read its workspaces and runs',
  write: 'queue and apply runs in its workspaces',
  maintain: 'administer its workspaces and create new ones',
  admin: 'administer the project, its workspaces and its team access',
};

export type Project = Resource<ProjectAttributes>;
export type TeamProject = Resource<TeamProjectAttributes>;
