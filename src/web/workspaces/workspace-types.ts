import type { Resource } from '../api/jsonapi-types';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';

/** Workspaces, run tasks and their attachments as /api/v2 serializes them (workspaces/tasks/workspace-tasks serializers). */
export interface WorkspaceAttributes {
  name: string;
  description: string | null;
  'auto-apply': boolean;
  'execution-mode'?: string;
  'working-directory': string | null;
  'created-at': string;
  permissions?: Record<string, boolean>;
}

export interface RunTaskAttributes {
  name: string;
  url: string;
  description: string | null;
  category: string;
  enabled: boolean;
}

export interface WorkspaceTaskAttributes {
  'enforcement-level': EnforcementLevel;
  stage: string | null;
  stages: string[];
}

export type Workspace = Resource<WorkspaceAttributes>;
export type RunTask = Resource<RunTaskAttributes>;
export type WorkspaceTask = Resource<WorkspaceTaskAttributes>;

/** "post_plan" → "post-plan", as the run page's timeline names the stages. */
export function stageLabel(stage: string): string {
  return stage.replace(/_/g, '-');
}

/** The id of a to-one relationship, or undefined. */
export function relatedId(resource: Resource<unknown>, name: string): string | undefined {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data.id : undefined;
}
