import type { NewJob } from '../jobs/job-queue.js';
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
