import type { Resource } from '../jsonapi.js';
import type { CommentRecord, RunEventRecord } from '../../record/run-record.repository.js';

/** HCP's `run-events`: action, description, created-at; relationships actor (a user) and comment. */
export function runEventResource(event: RunEventRecord): Resource {
  return {
    id: event.id,
    type: 'run-events',
    attributes: {
      action: event.action,
      description: event.description,
      'created-at': event.created_at,
      // Teamstage's: the actor's name also when it is no user (the organization token, Teamstage itself: null).
      'actor-name': event.actor_name,
    },
    relationships: {
      actor: { data: event.actor_user_id ? { id: event.actor_user_id, type: 'users' } : null },
      comment: { data: event.comment_id ? { id: event.comment_id, type: 'comments' } : null },
    },
    links: { self: `/api/v2/run-events/${event.id}` },
  };
}

/** HCP's `comments`: body; relationship run-event. */
export function commentResource(comment: CommentRecord): Resource {
  return {
    id: comment.id,
    type: 'comments',
    attributes: {
      body: comment.body,
      'created-at': comment.created_at,
      'author-name': comment.author_name,
    },
    relationships: {
      'run-event': {
        data: comment.run_event_id ? { id: comment.run_event_id, type: 'run-events' } : null,
        ...(comment.run_event_id ? { links: { related: `/api/v2/run-events/${comment.run_event_id}` } } : {}),
      },
    },
    links: { self: `/api/v2/comments/${comment.id}` },
  };
}

/** A user as `include=actor` shows it: the username (emails are not the record's business). */
export function actorResource(user: { id: string; username: string }): Resource {
  return { id: user.id, type: 'users', attributes: { username: user.username }, links: { self: `/api/v2/users/${user.id}` } };
}
