import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { actorOf } from '../record/actor.js';
import type { CommentRecord, RunEventRecord, RunRecorder, RunRecordRepository } from '../record/run-record.repository.js';
import type { RunsService, VisibleRun } from './runs.service.js';
import { provenVisible, type Visible } from '../access/lookup-proofs.js';

export type RunEventInclude = 'actor' | 'comment';
export const RUN_EVENT_INCLUDES: readonly RunEventInclude[] = ['actor', 'comment'];

/** Run events with what `include=actor,comment` asked for. */
export interface RunEventsResult {
  events: RunEventRecord[];
  actors: Array<{ id: string; username: string }>;
  comments: CommentRecord[];
}

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
    private readonly limits: { commentsPerRun: number; commentMaxChars: number },
  ) {}

  /** `found`: the run lookup's proof (find-and-authorize). */
  async events(found: VisibleRun, page: PageRequest, include: Set<RunEventInclude>): Promise<Page<RunEventRecord> & Omit<RunEventsResult, 'events'>> {
    const { rows, total } = await this.records.eventsOf(found.run.id, page.offset, page.size);
    return { ...pageOf(page, rows, total), ...(await this.related(rows, include)) };
  }

  /** `found`: the `run-event` lookup's proof (visibleEvent). */
  async event(event: Visible<RunEventRecord>, include: Set<RunEventInclude>): Promise<RunEventsResult> {
    return { events: [event], ...(await this.related([event], include)) };
  }

  /** The `run-event` lookup: the event, or 404 when missing or its run is not the caller's to read. */
  async visibleEvent(principal: Principal, eventId: string): Promise<Visible<RunEventRecord>> {
    const event = await this.records.findEvent(eventId);
    if (!event) throw Errors.runEventNotFound();
    await this.visibleOr(principal, event.run_id, Errors.runEventNotFound);
    return provenVisible(event);
  }

  async comments(found: VisibleRun, page: PageRequest): Promise<Page<CommentRecord>> {
    const { rows, total } = await this.records.commentsOf(found.run.id, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  /** The `comment` lookup: the comment, or 404 when missing or its run is not the caller's to read. */
  async visibleComment(principal: Principal, commentId: string): Promise<Visible<CommentRecord>> {
    const comment = await this.records.findComment(commentId);
    if (!comment) throw Errors.commentNotFound();
    await this.visibleOr(principal, comment.run_id, Errors.commentNotFound);
    return provenVisible(comment);
  }

  /** A comment on the run, by whoever may act on it; on the record as a `commented` event. */
  async addComment(found: VisibleRun, body: string | undefined): Promise<CommentRecord> {
    const { context } = found;
    const runId = found.run.id;
    requireAccess(context.standing, 'run', 'comment', {});
    if (typeof body !== 'string' || body.trim() === '') throw Errors.commentBodyRequired();
    if (body.length > this.limits.commentMaxChars) throw Errors.commentBodyTooLong(this.limits.commentMaxChars);
    // Counted before the write: on PostgreSQL, requests at the same moment may pass the limit by their number.
    const { total } = await this.records.commentsOf(runId, 0, 1);
    if (total >= this.limits.commentsPerRun) throw Errors.tooManyComments(this.limits.commentsPerRun);
    const actor = actorOf(context.standing.principal);
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
