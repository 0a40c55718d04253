import { humanStatus } from './run-timeline-model';

/** Which colour family a status belongs to; the text always says the status, colour only helps. */
function tone(status: string): 'ok' | 'bad' | 'wait' | 'busy' | 'idle' {
  if (/(passed|finished|applied|completed)$/.test(status)) return 'ok';
  if (/(failed|errored|canceled|discarded|unreachable)$/.test(status)) return 'bad';
  if (/(awaiting_override|awaiting_decision)$/.test(status) || status === 'planned') return 'wait';
  if (/(running|planning|applying|queued)$/.test(status)) return 'busy';
  return 'idle';
}

/** A run, phase, stage or result status as a small labelled tag; `label` words it otherwise ("not reached"), in grey. */
export function StatusBadge(props: { status: string; label?: string }) {
  return <span class={`badge badge-${props.label ? 'idle' : tone(props.status)}`}>{props.label ?? humanStatus(props.status)}</span>;
}

/** An ISO time as the reader's local date and time, machine-readable in `datetime`. */
export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  const date = new Date(props.iso);
  if (Number.isNaN(date.getTime())) return <span>{props.iso}</span>;
  return <time dateTime={props.iso}>{date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}</time>;
}
