import { ActorName } from '../actors/actor-names';
import { useMemo, useState } from 'preact/hooks';
import { createApiClient, type ApiClient } from '../api/api-client';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { actionWords, detailsOf, resourceKind, resourceName, sinceFromLocalInput, type AuditTrailEntry, type AuditTrailPage } from './audit-trail-model';
import { ListTable } from '../components/list-table';
import { AUDIT_RESOURCE_TYPES } from '../../shared/audit-resource-types.js';

/** What the trail is narrowed to: changes after `since`, by one actor, of one resource type (the API's filters). */
interface TrailFilters {
  since?: string;
  actor?: string;
  type?: string;
}

const PAGE_SIZE = '20';

/**
 * The trail read with an audit trail token: who did what to which resource and when, newest first (the API
 * answers oldest first, HCP's order: newestFirst turns its pages around), from a chosen time on (`since`), a
 * page at a time. A token the server refuses (revoked, expired,
 * replaced: 401) is forgotten (`onRefused`); any other token reads no trail (404) and is said to be the wrong one.
 */
export function AuditTrailEntries(props: { organization: string; token: string; onRefused: (why: string) => void; onForget: () => void }) {
  const client = useMemo(
    () => createApiClient(props.token, () => props.onRefused('The audit trail token was not accepted: it was revoked, replaced or has expired.')),
    [props.token],
  );
  const [sinceInput, setSinceInput] = useState('');
  const [actorInput, setActorInput] = useState('');
  const [typeInput, setTypeInput] = useState('');
  const [filters, setFilters] = useState<TrailFilters>({});
  const [pageNumber, setPageNumber] = useState(1);
  const trail = useApi(() => newestFirst(client, filters, pageNumber), [client, filters, pageNumber]);
  const filtered = filters.since !== undefined || filters.actor !== undefined || filters.type !== undefined;

  return (
    <section aria-labelledby="audit-entries-heading">
      <h2 id="audit-entries-heading">Changes</h2>
      <form
        class="inline-form"
        aria-label="Filter the changes"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ since: sinceFromLocalInput(sinceInput), actor: actorInput.trim() || undefined, type: typeInput || undefined });
          setPageNumber(1);
        }}
      >
        <span class="filter-field">
          <label for="audit-actor">Who (a username, api-team_…, api-org_…)</label>
          <input id="audit-actor" type="text" autoComplete="off" value={actorInput} onInput={(event) => setActorInput((event.target as HTMLInputElement).value)} />
        </span>
        <span class="filter-field">
          <label for="audit-type">What changed</label>
          <select id="audit-type" value={typeInput} onChange={(event) => setTypeInput((event.target as HTMLSelectElement).value)}>
            <option value="">Anything</option>
            {AUDIT_RESOURCE_TYPES.map((type) => (
              <option key={type} value={type}>
                {capitalized(resourceKind(type))}
              </option>
            ))}
          </select>
        </span>
        <span class="filter-field">
          <label for="audit-since">Changes since (your local time)</label>
          <input id="audit-since" type="datetime-local" step={1} value={sinceInput} onInput={(event) => setSinceInput((event.target as HTMLInputElement).value)} />
        </span>
        <button type="submit">Show</button>
        {filtered && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setSinceInput('');
              setActorInput('');
              setTypeInput('');
              setFilters({});
              setPageNumber(1);
            }}
          >
            Show every change
          </button>
        )}
        <button type="button" class="secondary" onClick={props.onForget}>
          Use another token
        </button>
      </form>
      {trail.state === 'error' && trail.error.isNotFound ? (
        <div role="alert" class="notice notice-error">
          <strong>This token reads no audit trail.</strong> Use the organization’s audit trail token, not a user, team or organization token.
        </div>
      ) : (
        <Loader result={trail} what="audit trail">
          {(page) => <EntriesTable organization={props.organization} page={page} filters={filters} onPage={setPageNumber} />}
        </Loader>
      )}
    </section>
  );
}

/**
 * Page `page` of the trail counted from the newest: the API's pages are oldest first, so the newest are on its
 * last page. The first read learns how many pages there are (and is the answer when there is one); the page
 * wanted is then read and its entries turned around. The newest page may hold fewer entries than the others.
 */
async function newestFirst(client: ApiClient, filters: TrailFilters, page: number): Promise<AuditTrailPage> {
  const read = (number: number) =>
    client.get<AuditTrailPage>('/organization/audit-trail', {
      since: filters.since,
      'filter[actor]': filters.actor,
      'filter[type]': filters.type,
      'page[number]': String(number),
      'page[size]': PAGE_SIZE,
    });
  const first = await read(1);
  const totalPages = Math.max(1, first.pagination.total_pages);
  const wanted = Math.min(Math.max(1, page), totalPages);
  const serverPage = totalPages - wanted + 1;
  const answer = serverPage === 1 ? first : await read(serverPage);
  return {
    data: [...answer.data].reverse(),
    pagination: {
      current_page: wanted,
      total_pages: totalPages,
      total_count: answer.pagination.total_count,
      prev_page: wanted > 1 ? wanted - 1 : null,
      next_page: wanted < totalPages ? wanted + 1 : null,
    },
  };
}

function EntriesTable(props: { organization: string; page: AuditTrailPage; filters: TrailFilters; onPage: (page: number) => void }) {
  const { data, pagination } = props.page;
  // An audit trail token belongs to one organization: one of another organization reads that one's trail.
  const elsewhere = data.find((entry) => entry.auth.organization_id !== props.organization)?.auth.organization_id;
  if (data.length === 0) {
    return <EmptyState>{emptyWords(props.filters)}</EmptyState>;
  }
  return (
    <>
      {elsewhere && (
        <div role="alert" class="notice notice-error">
          <strong>This is the audit trail token of {elsewhere}, not of {props.organization}:</strong> the changes below are {elsewhere}’s.
        </div>
      )}
      <ListTable caption={`Audit trail of ${props.organization}, newest first`} columns={['When', 'Who', 'What', 'Details']}>
          {data.map((entry) => (
            <EntryRow key={entry.id} entry={entry} />
          ))}
      </ListTable>
      <nav class="inline-form" aria-label="Audit trail pages">
        <button type="button" class="secondary" disabled={pagination.prev_page === null} onClick={() => pagination.prev_page !== null && props.onPage(pagination.prev_page)}>
          Newer
        </button>
        <span>
          Page {pagination.current_page} of {pagination.total_pages} · {pagination.total_count} {pagination.total_count === 1 ? 'change' : 'changes'}
        </span>
        <button type="button" class="secondary" disabled={pagination.next_page === null} onClick={() => pagination.next_page !== null && props.onPage(pagination.next_page)}>
          Older
        </button>
      </nav>
    </>
  );
}

function EntryRow(props: { entry: AuditTrailEntry }) {
  const { entry } = props;
  const details = detailsOf(entry);
  return (
    <tr>
      <td data-label="When">
        <time dateTime={entry.timestamp}>{new Date(entry.timestamp).toLocaleString()}</time>
      </td>
      <td data-label="Who">
        <ActorName name={entry.auth.description} />
      </td>
      <td data-label="What">
        {resourceKind(entry.resource.type)} <strong>{resourceName(entry)}</strong> {actionWords(entry.resource.action)}
      </td>
      <td data-label="Details">
        {details.length === 0 ? (
          <span class="muted">—</span>
        ) : (
          <ul class="plain">
            {details.map((detail) => (
              <li key={detail.attribute}>
                <code>{detail.attribute}</code>: {detail.before !== undefined ? `${detail.before} → ${detail.after}` : detail.after}
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

/** What an empty answer means, in the words of the filters that made it. */
function emptyWords(filters: TrailFilters): string {
  if (filters.since === undefined && filters.actor === undefined && filters.type === undefined) return 'No change recorded yet.';
  const what = filters.type ? `No ${resourceKind(filters.type)} change` : 'No change';
  const who = filters.actor ? ` by ${filters.actor}` : '';
  const when = filters.since ? ` since ${new Date(filters.since).toLocaleString()}` : '';
  return `${what}${who}${when}.`;
}

function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
