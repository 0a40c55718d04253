import type { TableRows } from '../db/multi-table-insert.js';
import type { CommentsTable, RunEventsTable } from '../db/schema.js';
import { newId } from '../core/ids.js';
import type { Actor } from './actor.js';

/**
 * One entry of a run's record (HCP's run events): what happened, in words, who did it and the comment
 * they gave. Every domain that moves a run or decides about it writes one through RunRecorder, in the
 * transaction of the change itself, so the record never misses or invents a change.
 *
 * Actions (docs/run-task-gating.md, "The record of a run, and more than one approver"): `queued` (created), each run status entered by its name
 * (`plan_queued`, `planning`, `planned`, `post_plan_running`, …, `confirmed`, `applied`, `discarded`,
 * `canceled`, `errored`), `task_stage_<status>` for each stage outcome, `overridden` for each override,
 * `commented`, and `policy_*` from policy evaluation.
 */
export interface RunEventInput {
  runId: string;
  action: string;
  description: string;
  /** Null (or absent) for what Teamstage did by itself. */
  actor?: Actor | null;
  /** A comment the actor gave with the decision: stored as a comment of the run, linked to this event. */
  comment?: string | null;
  /** When several events are written at once, their shared time. */
  at: string;
}

export type RunEventRow = Omit<RunEventsTable, 'seq'>;

/** The rows of these events (and of their comments): pure, so a run's creation can write them with its own rows. */
export function runEventRows(events: readonly RunEventInput[]): { events: RunEventRow[]; comments: CommentsTable[] } {
  const rows: RunEventRow[] = [];
  const comments: CommentsTable[] = [];
  for (const event of events) {
    const id = newId('re');
    const body = typeof event.comment === 'string' && event.comment.trim() !== '' ? event.comment : null;
    const commentId = body === null ? null : newId('wsc');
    if (body !== null && commentId !== null) {
      comments.push({
        id: commentId, run_id: event.runId, body, author_user_id: event.actor?.userId ?? null, author_name: event.actor?.name ?? null, run_event_id: id, created_at: event.at,
      });
    }
    rows.push({
      id, run_id: event.runId, action: event.action, description: event.description, actor_user_id: event.actor?.userId ?? null,
      actor_name: event.actor?.name ?? null, comment_id: commentId, created_at: event.at,
    });
  }
  return { events: rows, comments };
}

/** Rows made by runEventRows, as tables of a multi-table insert: comments first, then events. */
export function eventTableRows(rows: { events: RunEventRow[]; comments: CommentsTable[] }): TableRows[] {
  return [
    { table: 'comments', rows: rows.comments },
    { table: 'run_events', rows: rows.events },
  ];
}
