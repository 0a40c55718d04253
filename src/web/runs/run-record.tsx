import { ActorName } from '../actors/actor-names';
import { segment } from '../api/api-client';
import type { ListDocument, Resource } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { useSession } from '../session/session-context';
import { Time } from './status-badge';

interface RunEventAttributes {
  action: string;
  description: string | null;
  'created-at': string;
  /** Teamstage's: the actor's name also when it is no user (an organization or team token). */
  'actor-name'?: string | null;
}

/**
 * Who decided what and when: the run's events (`GET /runs/:id/run-events`, HCP Terraform's shape, with
 * their actor and comment), oldest first. A server without the record (it answers 404) shows nothing.
 * Read again whenever the run or one of its stages changes (`version`).
 */
export function RunRecord(props: { runId: string; version: string }) {
  const { api } = useSession();
  const events = useApi(
    () =>
      api
        .get<ListDocument<RunEventAttributes>>(`/runs/${segment(props.runId)}/run-events`, { include: 'actor,comment', 'page[size]': '100' })
        .catch((error: { status?: number }) => {
          if (error.status === 404) return null;
          throw error;
        }),
    [props.runId, props.version],
  );
  if (events.state !== 'ok' || !events.data || events.data.data.length === 0) return null;
  const included = events.data.included ?? [];
  const find = (ref: unknown) => {
    const id = (ref as { id?: string; type?: string } | null | undefined)?.id;
    const type = (ref as { type?: string } | null | undefined)?.type;
    return id ? included.find((resource) => resource.id === id && (!type || resource.type === type)) : undefined;
  };
  const ordered = [...events.data.data].sort((a, b) => Date.parse(a.attributes['created-at']) - Date.parse(b.attributes['created-at']));
  return (
    <section aria-labelledby="record-heading">
      <h2 id="record-heading">Record</h2>
      <ol class="record">
        {ordered.map((event) => {
          const actorUser = find(event.relationships?.actor?.data);
          const actor = actorUser ? actorName(actorUser) : event.attributes['actor-name'];
          const comment = find(event.relationships?.comment?.data);
          return (
            <li key={event.id}>
              <Time iso={event.attributes['created-at']} /> · <strong>
                <Described text={event.attributes.description || event.attributes.action} actor={actor} />
              </strong>
              {actor && <> · by <ActorName name={actor} /></>}
              {comment && typeof comment.attributes.body === 'string' && comment.attributes.body && (
                <blockquote class="preserve-lines">{comment.attributes.body}</blockquote>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The server's description names the actor by account ("Queued by api-team_…"): the console names it as it does everywhere. */
function Described(props: { text: string; actor: string | null | undefined }) {
  const { text, actor } = props;
  if (!actor || !text.includes(actor)) return <>{text}</>;
  const parts = text.split(actor);
  return (
    <>
      {parts.map((part, index) => (
        <span key={index}>
          {index > 0 && <ActorName name={actor} />}
          {part}
        </span>
      ))}
    </>
  );
}

function actorName(actor: Resource): string {
  const attributes = actor.attributes as { username?: string; name?: string; description?: string };
  return attributes.username ?? attributes.name ?? attributes.description ?? actor.id;
}
