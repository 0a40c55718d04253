import { readToken } from '../session/token-store';
import { API_BASE } from '../api/api-client';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { parseAnsi } from './ansi-log';
import { PlanChanges } from './plan-changes';
import { showsPlanChanges } from './plan-json-cache';
import type { Phase } from './run-types';

/** A plan's or apply's resource counts (+ additions, ~ changes, − destructions) and its log once it has one. */
export function PhaseDetails(props: { phase: Phase; kind: 'plan' | 'apply' }) {
  const { attributes } = props.phase;
  const counted = attributes.status === 'finished' || attributes['has-changes'];
  return (
    <>
      {counted && (
        <p class="change-summary" aria-label={`${props.kind === 'plan' ? 'Plan' : 'Apply'} summary`}>
          <span class="add">+{attributes['resource-additions']} to add</span>
          <span class="change">~{attributes['resource-changes']} to change</span>
          <span class="destroy">−{attributes['resource-destructions']} to destroy</span>
          {(attributes['resource-imports'] ?? 0) > 0 && <span>{attributes['resource-imports']} to import</span>}
        </p>
      )}
      {props.kind === 'plan' && showsPlanChanges(props.phase) && <PlanChanges planId={props.phase.id} />}
      {attributes['log-read-url'] && <PhaseLog url={attributes['log-read-url']} status={attributes.status} kind={props.kind} />}
    </>
  );
}

/**
 * The phase's log (`log-read-url`, e.g. /api/v2/plans/:id/log), read with the signed-in token and shown as
 * text. Read again when the phase's status changes.
 */
function PhaseLog(props: { url: string; status: string; kind: string }) {
  const target = sameOriginPath(props.url);
  const log = useApi(async () => {
    if (!target) return null;
    const response = await fetch(target, { headers: { authorization: `Bearer ${readToken() ?? ''}` }, credentials: 'omit' });
    if (!response.ok) throw new Error(`the ${props.kind} log could not be read (${response.status})`);
    return response.text();
  }, [target, props.status]);
  if (!target) {
    return (
      <p>
        <a href={props.url} target="_blank" rel="noopener noreferrer">
          The {props.kind} log
        </a>
      </p>
    );
  }
  return (
    <details class="log">
      <summary>The {props.kind} log</summary>
      {log.state === 'loading' && <p role="status" class="muted">Loading the log…</p>}
      {log.state === 'error' && <ErrorNotice error={log.error} />}
      {log.state === 'ok' && (log.data ? <AnsiLog text={log.data} label={`The ${props.kind} log`} /> : <p class="muted">The log is empty.</p>)}
    </details>
  );
}

/**
 * The API path of a log URL this server made (`<base URL>/api/v2/plans/:id/log`), read from the console's
 * own origin: the base URL may name another host than the one the browser used to reach the same server.
 * The token goes to this origin only; any other URL is offered as a plain link.
 */
function sameOriginPath(url: string): string | null {
  try {
    const parsed = new URL(url, window.location.href);
    if (!parsed.pathname.startsWith(`${API_BASE}/`) || !/\/log$/.test(parsed.pathname)) return null;
    return parsed.pathname + parsed.search;
  } catch {
    return null;
  }
}

/** A log with its colours and bold text, as terraform printed it; every segment is text, never markup. */
function AnsiLog(props: { text: string; label: string }) {
  return (
    <pre tabIndex={0} aria-label={props.label}>
      {parseAnsi(props.text).map((segment, index) =>
        segment.color || segment.bold || segment.underline ? (
          <span key={index} class={[segment.color && `ansi-${segment.color}`, segment.bold && 'ansi-bold', segment.underline && 'ansi-underline'].filter(Boolean).join(' ')}>
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
    </pre>
  );
}
