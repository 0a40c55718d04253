import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { actorOf } from '../record/actor.js';
import type { CommentRecord, RunEventRecord, RunRecorder, RunRecordRepository } from '../record/run-record.repository.js';
import type { RunsService } from './runs.service.js';

export type RunEventInclude = 'actor' | 'comment';
export const RUN_EVENT_INCLUDES: readonly RunEventInclude[] = ['actor', 'comment'];

/** Run events with what `include=actor,comment` asked for. */
export interface RunEventsResult {
  events: RunEventRecord[];
  actors: Array<{ id: string; username: string }>;
  comments: CommentRecord[];
}

const MAX_COMMENT = 10_000;

/**
 * The record of a run, read: its events (HCP's run events) and comments, for whoever may read the run;
 * and comments added by whoever may act on it (each one also an event, `commented`). An event or a comment
 * of a run the caller may not read is 404, as an unknown one.
 */
export class RunRecordService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly records: RunRecordRepository,
    private readonly recorder: RunRecorder,
    private readonly runs: RunsService,
  ) {}

  async events(principal: Principal, runId: string, page: PageRequest, include: Set<RunEventInclude>): Promise<Page<RunEventRecord> & Omit<RunEventsResult, 'events'>> {
    await this.runs.visibleRun(principal, runId);
    const { rows, total } = await this.records.eventsOf(runId, page.offset, page.size);
    return { ...pageOf(page, rows, total), ...(await this.related(rows, include)) };
  }

  async event(principal: Principal, eventId: string, include: Set<RunEventInclude>): Promise<RunEventsResult> {
    const event = await this.records.findEvent(eventId);
    if (!event) throw Errors.runEventNotFound();
    await this.visibleOr(principal, event.run_id, Errors.runEventNotFound);
    return { events: [event], ...(await this.related([event], include)) };
  }

  async comments(principal: Principal, runId: string, page: PageRequest): Promise<Page<CommentRecord>> {
    await this.runs.visibleRun(principal, runId);
    const { rows, total } = await this.records.commentsOf(runId, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  async comment(principal: Principal, commentId: string): Promise<CommentRecord> {
    const comment = await this.records.findComment(commentId);
    if (!comment) throw Errors.commentNotFound();
    await this.visibleOr(principal, comment.run_id, Errors.commentNotFound);
    return comment;
  }

  /** A comment on the run, by whoever may act on it; on the record as a `commented` event. */
  async addComment(principal: Principal, runId: string, body: string | undefined): Promise<CommentRecord> {
    const { context } = await this.runs.visibleRun(principal, runId);
    requireAccess(context.standing, 'run', 'act', { action: 'comment on' });
    if (typeof body !== 'string' || body.trim() === '') throw Errors.commentBodyRequired();
    if (body.length > MAX_COMMENT) throw Errors.commentBodyTooLong(MAX_COMMENT);
    const actor = actorOf(principal);
    const { comments } = await this.db.transaction().execute((trx) =>
      this.recorder.record(trx, { runId, action: 'commented', description: `${actor.name} commented`, actor, comment: body, at: nowIso() }),
    );
    return comments[0]!;
  }

  private async visibleOr(principal: Principal, runId: string, hidden: () => Error): Promise<void> {
    try {
      await this.runs.visibleRun(principal, runId);
    } catch {
      throw hidden();
    }
  }

  private async related(events: RunEventRecord[], include: Set<RunEventInclude>): Promise<Omit<RunEventsResult, 'events'>> {
    const actorIds = [...new Set(events.map((event) => event.actor_user_id).filter((id): id is string => id !== null))];
    const commentIds = events.map((event) => event.comment_id).filter((id): id is string => id !== null);
    return {
      actors: include.has('actor') ? await this.records.usersWithIds(actorIds) : [],
      comments: include.has('comment') ? await this.records.commentsWithIds(commentIds) : [],
    };
  }
}
