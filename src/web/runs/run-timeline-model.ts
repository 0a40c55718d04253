/**
 * The run page's timeline as plain data: the six steps of a run in order (pre-plan → plan → post-plan →
 * pre-apply → apply → post-apply), each with its status, when it started and ended. Pure (no DOM, no fetch;
 * it imports only the dependency-free src/shared), so test/unit can load it directly.
 */
import { isFinalPhaseStatus } from '../../shared/run-statuses.js';
import { isFinalStageStatus } from '../../shared/task-stage-statuses.js';

type Timestamps = Record<string, string | undefined>;

/** What the timeline reads of a plan, apply, task stage or task result (run-types.ts has the full shapes). */
interface Stamped {
  id: string;
  attributes: { status: string; 'status-timestamps': Timestamps };
}
interface StageLike extends Stamped {
  attributes: Stamped['attributes'] & { stage: string };
}

export interface TimelineStep<S extends StageLike = StageLike, P extends Stamped = Stamped> {
  key: 'pre_plan' | 'plan' | 'post_plan' | 'pre_apply' | 'apply' | 'post_apply';
  label: string;
  kind: 'stage' | 'phase';
  /** null: the run has no such step (no run task attached at that stage). */
  status: string | null;
  startedAt: string | null;
  /** Set once the step is final. */
  endedAt: string | null;
  /** The step's own status timestamps, for the detail line ("awaiting override at …"). */
  timestamps: Timestamps;
  stage?: S;
  phase?: P;
}

const ORDER: { key: TimelineStep['key']; label: string; kind: TimelineStep['kind'] }[] = [
  { key: 'pre_plan', label: 'Pre-plan tasks', kind: 'stage' },
  { key: 'plan', label: 'Plan', kind: 'phase' },
  { key: 'post_plan', label: 'Post-plan tasks', kind: 'stage' },
  { key: 'pre_apply', label: 'Pre-apply tasks', kind: 'stage' },
  { key: 'apply', label: 'Apply', kind: 'phase' },
  { key: 'post_apply', label: 'Post-apply tasks', kind: 'stage' },
];

/** Waiting in line is not work: a step starts when it runs (or first reports anything after that). */
const NOT_STARTED_KEYS = new Set(['pending-at', 'queued-at', 'plan-queueable-at']);

export function buildTimeline<S extends StageLike, P extends Stamped>(input: {
  plan?: P;
  apply?: P;
  stages: S[];
  results: Map<string, Stamped[]>;
}): TimelineStep<S, P>[] {
  return ORDER.map((step): TimelineStep<S, P> => {
    if (step.kind === 'phase') {
      const phase = step.key === 'plan' ? input.plan : input.apply;
      if (!phase) return { ...step, status: null, startedAt: null, endedAt: null, timestamps: {} };
      const { status } = phase.attributes;
      const timestamps = phase.attributes['status-timestamps'] ?? {};
      // An unreachable phase never ran, whatever timestamps it has.
      const startedAt = status === 'unreachable' ? null : earliest(timestamps);
      const endedAt = isFinalPhaseStatus(status) && startedAt ? (timestamps[`${status}-at`] ?? null) : null;
      return { ...step, status, startedAt, endedAt, timestamps, phase };
    }
    const stage = input.stages.find((candidate) => candidate.attributes.stage === step.key);
    if (!stage) return { ...step, status: null, startedAt: null, endedAt: null, timestamps: {} };
    const { status } = stage.attributes;
    const timestamps = stage.attributes['status-timestamps'] ?? {};
    // An override refreshes the stage's `running-at`; the results keep when the tasks really started.
    const resultTimes = (input.results.get(stage.id) ?? []).map((result) => earliest(result.attributes['status-timestamps'] ?? {}));
    const startedAt = minIso([earliest(timestamps), ...resultTimes]);
    const endedAt = isFinalStageStatus(status) ? (timestamps[`${status.replace(/_/g, '-')}-at`] ?? null) : null;
    return { ...step, status, startedAt, endedAt, timestamps, stage };
  });
}

function earliest(timestamps: Timestamps): string | null {
  const started: (string | undefined)[] = [];
  for (const [key, value] of Object.entries(timestamps)) if (!NOT_STARTED_KEYS.has(key)) started.push(value);
  return minIso(started);
}

function minIso(values: (string | null | undefined)[]): string | null {
  let best: string | null = null;
  for (const value of values) {
    if (!value || Number.isNaN(Date.parse(value))) continue;
    if (best === null || Date.parse(value) < Date.parse(best)) best = value;
  }
  return best;
}

/** "0.4 s", "12 s", "3 min 5 s", "2 h 4 min": short, and exact enough to compare steps. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The step's duration: start to end once final, start to `now` while it is still going. */
export function stepDuration(step: TimelineStep, now: number): { text: string; running: boolean } | null {
  if (!step.startedAt) return null;
  const start = Date.parse(step.startedAt);
  if (step.endedAt) return { text: formatDuration(Date.parse(step.endedAt) - start), running: false };
  // The tasks are done and a person is to decide: the checks' time, not the waiting, is the duration.
  const decided = step.status === 'awaiting_override' ? step.timestamps['awaiting-override-at'] : undefined;
  if (decided) return { text: `${formatDuration(Date.parse(decided) - start)}, then waiting for a decision`, running: false };
  return { text: formatDuration(now - start), running: true };
}
