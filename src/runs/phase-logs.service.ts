import type { FastifyBaseLogger } from 'fastify';
import { Errors } from '../core/errors.js';
import { isFinalPhaseStatus } from '../shared/run-statuses.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import { isValidLogSignature, signedLogPath } from './log-url-signature.js';
import type { PhaseUploadsRepository } from './phase-uploads.repository.js';
import type { PhaseRow, PhaseTable, RunsRepository } from './runs.repository.js';
import type { SigningKeysRepository } from './signing-keys.repository.js';

const STX = Buffer.from([2]);
const ETX = Buffer.from([3]);
const KEY_NAME = 'log-read-url';

/**
 * What the built-in executor (remote mode) "logs": it runs no Terraform, so its log says so, in
 * Terraform's words for a plan and an apply that change nothing.
 */
function simulatedLog(kind: PhaseTable, phase: PhaseRow): Buffer {
  if (phase.status !== 'finished') return Buffer.alloc(0);
  const line = kind === 'plans' ? 'No changes. Your infrastructure matches the configuration.' : 'Apply complete! Resources: 0 added, 0 changed, 0 destroyed.';
  return Buffer.from(`Teamstage's built-in executor runs no Terraform (simulated).\n\n${line}\n`);
}

/**
 * Plans' and applies' logs read through their signed `log-read-url` (log-url-signature.ts), as terraform and
 * go-tfe read HCP's: no token, `offset` and `limit` in bytes, the log framed by STX and, once the phase is
 * final, ETX (go-tfe's LogReader stops at ETX). Agent mode: the log the pipeline uploaded; remote mode: the
 * built-in executor's few lines.
 */
export class PhaseLogsService {
  private key: Buffer | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly runs: RunsRepository,
    private readonly uploads: PhaseUploadsRepository,
    private readonly keys: SigningKeysRepository,
    private readonly settings: { baseUrl: string; ttlSeconds: number },
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Loads (or makes) the signing key; until it is there, phases show no log URL. */
  load(): Promise<void> {
    this.loading ??= this.keys.keyFor(KEY_NAME).then(
      (key) => void (this.key = key),
      (error: unknown) => {
        this.loading = undefined;
        this.log.warn({ err: error }, 'the log URL signing key could not be read; log-read-url stays null until it can');
      },
    );
    return this.loading;
  }

  /** The absolute, signed, expiring URL of a phase's log; null while the key is not loaded. */
  urlFor(phaseId: string): string | null {
    if (!this.key) {
      void this.load();
      return null;
    }
    return `${this.settings.baseUrl}${signedLogPath(this.key, phaseId, Date.now() / 1000, this.settings.ttlSeconds)}`;
  }

  /**
   * Checks a signed log URL: 404 for a bad, expired or unknown URL, decided before anything else of the
   * request (its `offset` and `limit` included) is looked at, as for every unknown id.
   */
  async open(phaseId: string, expires: string, signature: string): Promise<{ kind: PhaseTable; phase: PhaseRow }> {
    if (!this.key) await this.load();
    if (!this.key || !isValidLogSignature(this.key, phaseId, expires, signature, Date.now() / 1000)) throw Errors.logUrlNotFound();
    const kind: PhaseTable | undefined = phaseId.startsWith('plan-') ? 'plans' : phaseId.startsWith('apply-') ? 'applies' : undefined;
    const phase = kind ? await this.runs.findPhase(kind, phaseId) : undefined;
    if (!kind || !phase) throw Errors.logUrlNotFound();
    return { kind, phase };
  }

  /**
   * The bytes `offset` to `offset + limit` of an opened phase's framed log, piece by piece as storage gives
   * them (an agent's log can be large: it is never gathered whole in memory).
   */
  async *read(opened: { kind: PhaseTable; phase: PhaseRow }, offset: number, limit: number | undefined): AsyncGenerator<Buffer> {
    const { kind, phase } = opened;
    const end = limit === undefined ? Infinity : offset + limit;
    let position = 0;
    /** The part of `piece` (which starts at `position` in the framed log) inside the window. */
    const within = (piece: Buffer): Buffer | undefined => {
      const from = Math.max(offset - position, 0);
      const to = Math.min(end - position, piece.length);
      position += piece.length;
      return to > from ? piece.subarray(from, to) : undefined;
    };
    const stx = within(STX);
    if (stx) yield stx;
    if (executionModeOf(phase.execution_mode) === 'agent') {
      if (phase.log_upload_id) {
        for await (const piece of this.uploads.read(phase.log_upload_id)) {
          const part = within(piece);
          if (part) yield part;
          if (position >= end) return;
        }
      }
    } else {
      const part = within(simulatedLog(kind, phase));
      if (part) yield part;
    }
    if (isFinalPhaseStatus(phase.status)) {
      const etx = within(ETX);
      if (etx) yield etx;
    }
  }
}
