import type { Resource } from '../api/jsonapi-types';
import { FIXED_PROJECT_ACCESS_LEVELS, type ProjectAccessLevel } from '../../shared/project-access-levels.js';

export { FIXED_PROJECT_ACCESS_LEVELS, type ProjectAccessLevel };

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

/** What each fixed level gives, in the words HCP uses. */
export const LEVEL_MEANING: Record<Exclude<ProjectAccessLevel, 'custom'>, string> = {
  read: 'read its workspaces and runs',
  write: 'queue and apply runs in its workspaces',
  maintain: 'administer its workspaces and create new ones',
  admin: 'administer the project, its workspaces and its team access',
};

export type Project = Resource<ProjectAttributes>;
export type TeamProject = Resource<TeamProjectAttributes>;
