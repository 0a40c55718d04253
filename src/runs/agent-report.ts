import { Errors } from '../core/errors.js';

/** What a pipeline reports at the end of a claimed phase (agent mode). */
export type AgentReport = { status: 'finished' } | { status: 'errored'; message: string };

const MAX_MESSAGE = 10_000;

/** The report from the request's plain JSON body (`{"status":"finished"}` or `{"status":"errored","message":"…"}`): 422 otherwise. */
export function parseAgentReport(body: { status?: unknown; message?: unknown }): AgentReport {
  if (body.status === 'finished') return { status: 'finished' };
  if (body.status === 'errored') {
    if (body.message !== undefined && body.message !== null && typeof body.message !== 'string') throw Errors.invalidReport('message must be a string');
    const message = typeof body.message === 'string' && body.message.trim() !== '' ? body.message : 'the pipeline reported the phase errored';
    if (message.length > MAX_MESSAGE) throw Errors.invalidReport(`message must be at most ${MAX_MESSAGE} characters`);
    return { status: 'errored', message };
  }
  throw Errors.invalidReport('status must be "finished" or "errored"');
}

/** As stored on the plan or apply: one spelling per report, so a repeated report compares equal. */
export function storedReport(report: AgentReport): string {
  return JSON.stringify(report.status === 'finished' ? { status: 'finished' } : { status: 'errored', message: report.message });
}
