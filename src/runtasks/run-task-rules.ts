import type { TaskStageName } from '../db/schema.js';
import type { FeatureSet } from '../access/editions.js';
import { DEFAULT_STAGES, inRunOrder, isTaskStageName, TASK_STAGE_ORDER } from '../shared/stage-order.js';

/** Pure rules of run tasks and their attachments, edition limits included. Each returns why input is bad, or undefined. */

export const DESCRIPTION_MAX_LENGTH = 300;
export const URL_MAX_LENGTH = 2048;
export const TASK_CATEGORY = 'task';
import { isEnforcementLevel, type EnforcementLevel } from '../shared/enforcement-levels.js';
export { ENFORCEMENT_LEVELS, type EnforcementLevel } from '../shared/enforcement-levels.js';

/** Cc: C0 controls, DEL and C1 controls. The URL parser silently drops some (tab, newline), so the raw text is checked. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The shape every URL we store or send must have (run task URLs, and the links a callback reports):
 * http(s) with a host, no `user:password@` (it would be sent as Basic credentials and shown to every
 * reader), no control characters. `field` names it in the message.
 */
export function httpUrlProblem(url: string, field = 'url'): string | undefined {
  if (url.length === 0) return `${field} cannot be empty`;
  if (url.length > URL_MAX_LENGTH) return `${field} must be at most ${URL_MAX_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(url)) return `${field} must not contain control characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${field} is not a valid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${field} must use http or https`;
  if (parsed.hostname === '') return `${field} must name a host`;
  if (parsed.username !== '' || parsed.password !== '') return `${field} must not carry credentials (user:password@)`;
  return undefined;
}

export function taskUrlProblem(url: string): string | undefined {
  return httpUrlProblem(url, 'url');
}

export function descriptionProblem(description: string): string | undefined {
  return description.length > DESCRIPTION_MAX_LENGTH ? `description must be at most ${DESCRIPTION_MAX_LENGTH} characters` : undefined;
}

export function categoryProblem(category: string): string | undefined {
  return category === TASK_CATEGORY ? undefined : `category must be '${TASK_CATEGORY}'`;
}

const ENFORCEMENT_LEVEL_PROBLEM = 'enforcement-level must be advisory or mandatory';

export function enforcementLevelProblem(level: string): string | undefined {
  return isEnforcementLevel(level) ? undefined : ENFORCEMENT_LEVEL_PROBLEM;
}

/** The level `level` names, or the problem with it. */
export function enforcementLevelOrProblem(level: string): { level: EnforcementLevel } | { problem: string } {
  return isEnforcementLevel(level) ? { level } : { problem: ENFORCEMENT_LEVEL_PROBLEM };
}

export type StagesResult = { stages: TaskStageName[] } | { problem: string; pointer: 'stages' | 'stage' };

/**
 * The stages of an attachment from what the client sent: `stages` (the current form) wins over the
 * legacy single `stage`; neither gives the default `["post_plan"]`. Duplicates collapse; order is run order.
 */
export function resolveStages(input: { stages?: string[]; stage?: string }, fallback: readonly TaskStageName[] = DEFAULT_STAGES): StagesResult {
  const allowed = `one of ${TASK_STAGE_ORDER.join(', ')}`;
  if (input.stages !== undefined) {
    if (input.stages.length === 0) return { problem: 'stages must contain at least one stage', pointer: 'stages' };
    const bad = input.stages.find((stage) => !isTaskStageName(stage));
    if (bad !== undefined) return { problem: `'${bad}' is not a run task stage; use ${allowed}`, pointer: 'stages' };
    return { stages: inRunOrder(input.stages as TaskStageName[]) };
  }
  if (input.stage !== undefined) {
    if (!isTaskStageName(input.stage)) return { problem: `'${input.stage}' is not a run task stage; use ${allowed}`, pointer: 'stage' };
    return { stages: [input.stage] };
  }
  return { stages: [...fallback] };
}

/** An edition may cap the run tasks of an organization (Free: one); `existing` is how many the organization has now. */
export function runTaskLimitProblem(featureSet: FeatureSet, existing: number): string | undefined {
  if (!featureSet.runTasks) return `the ${featureSet.name} edition does not include run tasks`;
  const limit = featureSet.runTaskLimit;
  if (limit === null || existing < limit) return undefined;
  return `the ${featureSet.name} edition allows ${limit} run task${limit === 1 ? '' : 's'} per organization`;
}

/** A run task may be attached to at most N workspaces on the Free edition; `attached` counts them now. */
export function workspaceLimitProblem(featureSet: FeatureSet, attached: number): string | undefined {
  const limit = featureSet.runTaskWorkspaceLimit;
  if (limit === null || attached < limit) return undefined;
  return `the ${featureSet.name} edition allows a run task on at most ${limit} workspaces`;
}
