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

  /** The bytes `offset` to `offset + limit` of the framed log; 404 for a bad, expired or unknown URL. */
  async read(phaseId: string, expires: string, signature: string, offset: number, limit: number | undefined): Promise<Buffer> {
    if (!this.key) await this.load();
    if (!this.key || !isValidLogSignature(this.key, phaseId, expires, signature, Date.now() / 1000)) throw Errors.logUrlNotFound();
    const kind: PhaseTable | undefined = phaseId.startsWith('plan-') ? 'plans' : phaseId.startsWith('apply-') ? 'applies' : undefined;
    const phase = kind ? await this.runs.findPhase(kind, phaseId) : undefined;
    if (!kind || !phase) throw Errors.logUrlNotFound();
    const end = limit === undefined ? Infinity : offset + limit;
    const parts: Buffer[] = [];
    let position = 0;
    const take = (piece: Buffer) => {
      const from = Math.max(offset - position, 0);
      const to = Math.min(end - position, piece.length);
      if (to > from) parts.push(piece.subarray(from, to));
      position += piece.length;
    };
    take(STX);
    if (executionModeOf(phase.execution_mode) === 'agent') {
      if (phase.log_upload_id) {
        for await (const piece of this.uploads.read(phase.log_upload_id)) {
          take(piece);
          if (position >= end) break;
        }
      }
    } else {
      take(simulatedLog(kind, phase));
    }
    if (isFinalPhaseStatus(phase.status)) take(ETX);
    return Buffer.concat(parts);
  }
}
