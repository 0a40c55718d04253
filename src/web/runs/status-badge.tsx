import { statusMeaning, statusWords } from './status-words';

/** A run, phase, stage or result status as a small labelled tag in its meaning's colour; `label` words it otherwise ("not reached"), in grey. */
export function StatusBadge(props: { status: string; label?: string }) {
  return (
    <span class={`badge badge-${props.label ? 'idle' : statusMeaning(props.status)}`} data-status={props.status}>
      {props.label ?? statusWords(props.status)}
    </span>
  );
}

/** Made once: `toLocaleString` with options builds a formatter at every call (13-20 ms of a run page's first render, profiled). */
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An ISO time as the reader's local date and time, machine-readable in `datetime`. */
export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  const date = new Date(props.iso);
  if (Number.isNaN(date.getTime())) return <span>{props.iso}</span>;
  return <time dateTime={props.iso}>{EXACT.format(date)}</time>;
}

/** "3 min ago" (from `now`), the exact local time on hover and in `datetime`. */
export function RelativeTime(props: { iso: string | null | undefined; now: number }) {
  if (!props.iso) return <span class="muted">—</span>;
  const date = new Date(props.iso);
  if (Number.isNaN(date.getTime())) return <span>{props.iso}</span>;
  const exact = EXACT.format(date);
  return (
    <time dateTime={props.iso} title={exact}>
      {relativeWords(props.now - date.getTime())}
    </time>
  );
}

/** Elapsed milliseconds in words: "just now", "3 min ago", "2 h ago", "4 days ago". */
export function relativeWords(elapsed: number): string {
  const seconds = Math.round(elapsed / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}
