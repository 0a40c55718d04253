import type { FastifyBaseLogger } from 'fastify';
import { Errors } from '../core/errors.js';
import { isFinalPhaseStatus } from '../shared/run-statuses.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import { generationVerifies, isValidLogSignature, keyGeneration, parseSignatureSegment, signedLogPath } from './log-url-signature.js';
import type { PhaseUploadsRepository } from './phase-uploads.repository.js';
import type { PhaseRow, PhaseTable, RunsRepository } from './runs.repository.js';
import type { SigningKeysRepository } from './signing-keys.repository.js';

const STX = Buffer.from([2]);
const ETX = Buffer.from([3]);
const KEY_NAME = 'log-read-url';
const keyName = (generation: number) => `${KEY_NAME}@${generation}`;

/**
 * What the built-in executor (remote mode) "logs": it runs no Terraform, so its log says so, in
 * Terraform's words for the phase's counts (none, or its simulated changes: TEAMSTAGE_SIMULATED_PLAN_CHANGES).
 */
function simulatedLog(kind: PhaseTable, phase: PhaseRow): Buffer {
  if (phase.status !== 'finished') return Buffer.alloc(0);
  const counts = [phase.resource_additions, phase.resource_changes, phase.resource_destructions];
  const line = kind === 'applies'
    ? `Apply complete! Resources: ${counts[0]} added, ${counts[1]} changed, ${counts[2]} destroyed.`
    : phase.has_changes === 1
      ? `Plan: ${counts[0]} to add, ${counts[1]} to change, ${counts[2]} to destroy.`
      : 'No changes. Your infrastructure matches the configuration.';
  return Buffer.from(`Teamstage's built-in executor runs no Terraform (simulated).\n\n${line}\n`);
}

/**
 * Plans' and applies' logs read through their signed `log-read-url` (log-url-signature.ts), as terraform and
 * go-tfe read HCP's: no token, `offset` and `limit` in bytes, the log framed by STX and, once the phase is
 * final, ETX (go-tfe's LogReader stops at ETX). Agent mode: the log the pipeline uploaded; remote mode: the
 * built-in executor's few lines.
 */
export class PhaseLogsService {
  /** The keys of the generations this node has read (log-url-signature.ts), by generation. */
  private readonly keyByGeneration = new Map<number, Buffer>();
  private loading: Promise<void> | undefined;
  private loadingGeneration: number | undefined;

  constructor(
    private readonly runs: RunsRepository,
    private readonly uploads: PhaseUploadsRepository,
    private readonly keys: SigningKeysRepository,
    private readonly settings: { baseUrl: string; ttlSeconds: number; keyLifetimeSeconds: number },
    private readonly log: FastifyBaseLogger,
  ) {}

  private generationNow(): number {
    return keyGeneration(Date.now() / 1000, this.settings.keyLifetimeSeconds);
  }

  /**
   * Loads (or makes) the keys of this generation and the next, so a node signs with the next one the moment
   * it starts; deletes the retired ones (older than the one before this). Until a key is there, phases show no
   * log URL.
   */
  load(): Promise<void> {
    const generation = this.generationNow();
    if (this.loading && this.loadingGeneration === generation) return this.loading;
    this.loadingGeneration = generation;
    this.loading = (async () => {
      for (const wanted of [generation, generation + 1]) this.keyByGeneration.set(wanted, await this.keys.keyFor(keyName(wanted)));
      for (const known of this.keyByGeneration.keys()) if (known < generation - 1) this.keyByGeneration.delete(known);
      await this.keys.removeGenerationsBefore(KEY_NAME, generation - 1);
    })().catch((error: unknown) => {
      this.loading = undefined;
      this.log.warn({ err: error }, 'the log URL signing key could not be read; log-read-url stays null until it can');
    });
    return this.loading;
  }

  /** The absolute, signed, expiring URL of a phase's log; null while no key is loaded. */
  urlFor(phaseId: string): string | null {
    const generation = this.generationNow();
    const key = this.keyByGeneration.get(generation);
    if (!key || !this.keyByGeneration.has(generation + 1)) void this.load();
    if (!key) return null;
    return `${this.settings.baseUrl}${signedLogPath(key, generation, phaseId, Date.now() / 1000, this.settings.ttlSeconds)}`;
  }

  /**
   * Checks a signed log URL: 404 for a bad, expired or unknown URL, one whose key retired, or one of a
   * discarded run, decided before anything else of the request (its `offset` and `limit` included) is
   * looked at, as for every unknown id.
   */
  async open(phaseId: string, expires: string, segment: string): Promise<{ kind: PhaseTable; phase: PhaseRow }> {
    const now = Date.now() / 1000;
    const parsed = parseSignatureSegment(segment);
    if (!parsed || !generationVerifies(parsed.generation, now, this.settings.keyLifetimeSeconds)) throw Errors.logUrlNotFound();
    const key = this.keyByGeneration.get(parsed.generation) ?? (await this.keys.find(keyName(parsed.generation)));
    if (!key || !isValidLogSignature(key, parsed.generation, phaseId, expires, parsed.signature, now)) throw Errors.logUrlNotFound();
    const kind: PhaseTable | undefined = phaseId.startsWith('plan-') ? 'plans' : phaseId.startsWith('apply-') ? 'applies' : undefined;
    const phase = kind ? await this.runs.findPhase(kind, phaseId) : undefined;
    if (!kind || !phase) throw Errors.logUrlNotFound();
    // Discarded: what a person refused is not read through a URL that may have travelled further.
    if ((await this.runs.findRun(phase.run_id))?.status === 'discarded') throw Errors.logUrlNotFound();
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
