import { useEffect, useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { toApiError } from '../api/use-api';
import type { ApiError } from '../api/api-client';
import { ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import { Markdown } from './markdown';
import { groupBySeverity } from './outcome-groups';
import type { Outcome, OutcomeAttributes, OutcomeTag } from './run-types';

/** Outcomes shown at first in each severity group; the rest behind "Show all". */
const FIRST_FEW = 3;
const PAGE_SIZE = 100;

interface Loaded {
  outcomes: Outcome[];
  total: number;
  nextPage: number | null;
}

/**
 * The outcomes a task reported with its result (`GET /task-results/:id/outcomes`), grouped by severity
 * (worst first), the first few of each group shown and the rest a click away; pages of 100 are read on
 * demand, and the heading gives the true total. Each outcome is a summary line that opens on its Markdown
 * body. Read again only when the result changes (its `updated-at`).
 */
export function OutcomesList(props: { resultId: string; updatedAt: string; taskName: string }) {
  const { api } = useSession();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  async function load(page: number, previous: Outcome[]): Promise<Loaded> {
    const document = await api.get<ListDocument<OutcomeAttributes>>(`/task-results/${segment(props.resultId)}/outcomes`, {
      'page[size]': String(PAGE_SIZE),
      'page[number]': String(page),
    });
    const pagination = document.meta?.pagination;
    const outcomes = [...previous, ...(document.data as Outcome[])];
    return { outcomes, total: pagination?.['total-count'] ?? outcomes.length, nextPage: pagination?.['next-page'] ?? null };
  }

  useEffect(() => {
    let current = true;
    load(1, []).then(
      (result) => current && (setLoaded(result), setError(null)),
      (caught: unknown) => current && setError(toApiError(caught)),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.resultId, props.updatedAt]);

  async function more() {
    if (!loaded?.nextPage) return;
    setBusy(true);
    try {
      setLoaded(await load(loaded.nextPage, loaded.outcomes));
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  if (error) return <ErrorNotice error={error} what="outcomes" />;
  if (!loaded) return <p role="status" class="muted">Loading outcomes…</p>;
  if (loaded.total === 0) return null;
  const groups = groupBySeverity(loaded.outcomes);
  const headingId = `outcomes-${props.resultId}`;
  return (
    <section aria-labelledby={headingId} class="outcomes">
      <h5 id={headingId}>
        {loaded.total} {loaded.total === 1 ? 'outcome' : 'outcomes'} from {props.taskName}
        {loaded.outcomes.length < loaded.total && <span class="muted"> ({loaded.outcomes.length} loaded)</span>}
      </h5>
      <p class="muted group-counts">{groups.map((group) => `${group.label}: ${group.outcomes.length}`).join(' · ')}</p>
      {groups.map((group) => (
        <OutcomeGroupList key={group.label} label={group.label} level={group.level} outcomes={group.outcomes} />
      ))}
      {loaded.nextPage && (
        <button type="button" class="secondary" disabled={busy} onClick={() => void more()}>
          {busy ? 'Loading…' : `Load ${Math.min(PAGE_SIZE, loaded.total - loaded.outcomes.length)} more of ${loaded.total}`}
        </button>
      )}
    </section>
  );
}

function OutcomeGroupList(props: { label: string; level: string | null; outcomes: Outcome[] }) {
  const [expanded, setExpanded] = useState(false);
  const shown = expanded ? props.outcomes : props.outcomes.slice(0, FIRST_FEW);
  const hidden = props.outcomes.length - shown.length;
  return (
    <div class="outcome-group">
      <h6>
        <span class={`tag tag-${levelClass(props.level)}`}>{props.label}</span> <span class="muted">{props.outcomes.length}</span>
      </h6>
      <ul>
        {shown.map((outcome) => (
          <OutcomeItem key={outcome.id} outcome={outcome} />
        ))}
      </ul>
      {(hidden > 0 || expanded) && props.outcomes.length > FIRST_FEW && (
        <button type="button" class="secondary small" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? `Show the first ${FIRST_FEW} only` : `Show all ${props.outcomes.length} (${hidden} more)`}
        </button>
      )}
    </div>
  );
}

function OutcomeItem(props: { outcome: Outcome }) {
  const { attributes } = props.outcome;
  const url = safeUrl(attributes.url);
  return (
    <li class="outcome">
      <details>
        <summary>
          <strong>{attributes['outcome-id']}</strong>: {attributes.description}
        </summary>
        <OutcomeTags tags={attributes.tags} />
        {attributes.body && <Markdown source={attributes.body} class="outcome-body" />}
        {url && (
          <p>
            <a href={url} target="_blank" rel="noopener noreferrer">
              Details of {attributes['outcome-id']}
            </a>
          </p>
        )}
      </details>
    </li>
  );
}

/** Tags as HCP Terraform's outcomes carry them: `{ "Severity": [{ "label": "High", "level": "error" }] }`. */
function OutcomeTags(props: { tags: unknown }) {
  if (!props.tags || typeof props.tags !== 'object' || Array.isArray(props.tags)) return null;
  const groups = Object.entries(props.tags as Record<string, unknown>).filter(([, values]) => Array.isArray(values)) as [string, OutcomeTag[]][];
  if (groups.length === 0) return null;
  return (
    <ul class="tags" aria-label="Tags">
      {groups.flatMap(([name, values]) =>
        values.map((tag, index) => (
          <li key={`${name}-${index}`} class={`tag tag-${levelClass(tag.level)}`}>
            {name}: {String(tag.label)}
          </li>
        )),
      )}
    </ul>
  );
}

function levelClass(level: unknown): string {
  return level === 'error' || level === 'warning' || level === 'info' ? level : 'none';
}

/** Only http(s) links from a task are made clickable (a `javascript:` URL must not become a link). */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
