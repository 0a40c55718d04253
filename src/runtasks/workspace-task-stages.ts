import type { TaskStageName } from '../db/schema.js';

/** The stages of an attachment, stored as a JSON array of stage names. */
export function parseStages(json: string): TaskStageName[] {
  return JSON.parse(json) as TaskStageName[];
}
