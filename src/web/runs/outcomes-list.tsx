import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { Loader } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { OutcomeAttributes, OutcomeTag } from './run-types';

/**
 * The outcomes a task reported with its result (`GET /task-results/:id/outcomes`): each finding with its
 * tags (e.g. Severity: High) and body. Read again only when the result changes (its `updated-at`).
 */
export function OutcomesList(props: { resultId: string; updatedAt: string }) {
  const { api } = useSession();
  const outcomes = useApi(
    () => api.get<ListDocument<OutcomeAttributes>>(`/task-results/${segment(props.resultId)}/outcomes`, { 'page[size]': '100' }),
    [props.resultId, props.updatedAt],
  );
  return (
    <Loader result={outcomes} what="outcomes">
      {(document) =>
        document.data.length === 0 ? null : (
          <section aria-label="Outcomes" class="outcomes">
            <h5>Outcomes ({document.data.length})</h5>
            <ul>
              {document.data.map((outcome) => (
                <li key={outcome.id} class="outcome">
                  <p>
                    <strong>{outcome.attributes['outcome-id']}</strong>: {outcome.attributes.description}
                  </p>
                  <OutcomeTags tags={outcome.attributes.tags} />
                  {outcome.attributes.body && <p class="preserve-lines">{outcome.attributes.body}</p>}
                  {safeUrl(outcome.attributes.url) && (
                    <p>
                      <a href={safeUrl(outcome.attributes.url)!} target="_blank" rel="noopener noreferrer">
                        Details of {outcome.attributes['outcome-id']}
                      </a>
                    </p>
                  )}
                </li>
              ))}
            </ul>
          </section>
        )
      }
    </Loader>
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
