import type { NewJob } from '../jobs/job-queue.js';
import type { RunStatus } from '../shared/run-statuses.js';
import type { PhaseTable } from './runs.repository.js';

/**
 * The job that errors a run whose claimed phase got no report in time (TEAMSTAGE_AGENT_PHASE_TIMEOUT).
 * Inserted in the claim's own transaction with the deadline as its time, so it survives restarts and any
 * node takes it; its handler re-reads the run and does nothing once the phase was reported (or the run
 * moved on some other way). One per phase: a run never returns to a status it left, so a phase is claimed once.
 */
export const AGENT_PHASE_TIMEOUT_JOB = 'agent.phase-timeout';

export interface AgentPhaseTimeoutPayload {
  runId: string;
  table: PhaseTable;
  phaseId: string;
}

export function agentPhaseTimeoutJob(payload: AgentPhaseTimeoutPayload, deadline: Date, organizationName: string): NewJob {
  return { kind: AGENT_PHASE_TIMEOUT_JOB, payload, runAt: deadline, dedupeKey: `${AGENT_PHASE_TIMEOUT_JOB}:${payload.phaseId}`, organizationName };
}

export function isAgentPhaseTimeoutPayload(value: unknown): value is AgentPhaseTimeoutPayload {
  const payload = value as Partial<AgentPhaseTimeoutPayload> | null;
  return typeof payload?.runId === 'string' && typeof payload.phaseId === 'string' && (payload.table === 'plans' || payload.table === 'applies');
}

/**
 * The job that errors a run whose plan or apply no pipeline claimed in time (TEAMSTAGE_AGENT_CLAIM_TIMEOUT):
 * an agent-mode run waits for a claim in `plan_queued` (no pre-plan stage), `pre_plan_completed` or
 * `apply_queued`, holding its workspace's turn. Inserted with the status change that makes the phase
 * claimable (run-transitions.ts), due at the deadline; its handler does nothing once the run left that status.
 * A kind of its own, so a node of the version before, which does not know it, leaves it to one that does.
 */
export const AGENT_CLAIM_TIMEOUT_JOB = 'agent.claim-timeout';

/** The statuses in which an agent-mode run waits for a pipeline to claim a phase, and which phase. */
export const AWAITS_CLAIM: Partial<Record<RunStatus, 'plan' | 'apply'>> = { plan_queued: 'plan', pre_plan_completed: 'plan', apply_queued: 'apply' };

export interface AgentClaimTimeoutPayload {
  runId: string;
  /** The status the run waited in for the claim. */
  status: RunStatus;
}

export function agentClaimTimeoutJob(payload: AgentClaimTimeoutPayload, deadline: Date, organizationName: string): NewJob {
  return { kind: AGENT_CLAIM_TIMEOUT_JOB, payload, runAt: deadline, dedupeKey: `${AGENT_CLAIM_TIMEOUT_JOB}:${payload.runId}:${payload.status}`, organizationName };
}

export function isAgentClaimTimeoutPayload(value: unknown): value is AgentClaimTimeoutPayload {
  const payload = value as Partial<AgentClaimTimeoutPayload> | null;
  return typeof payload?.runId === 'string' && typeof payload.status === 'string' && AWAITS_CLAIM[payload.status] !== undefined;
}
