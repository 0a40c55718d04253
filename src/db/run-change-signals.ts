import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from './database.js';
import { listen } from './pg-listen.js';

/** Migration 021's channel: the payload is the workspace id of a run or task stage whose status changed, or of a new run (037). */
export const RUN_CHANGES_CHANNEL = 'teamstage_runs';

/** Called with a workspace id, or undefined for "anything may have changed" (after a lost connection). */
export type RunChangeListener = (workspaceId: string | undefined) => void;

/**
 * Tells whoever waits on a workspace's runs (runs/run-waits.ts) that a run's or task stage's status there
 * changed, once the change is committed, on every node:
 * - PostgreSQL: migration 021's triggers NOTIFY on commit; each node LISTENs on a connection of its own.
 * - SQLite: temporary triggers on the server's connection call a function of this process; the workspaces
 *   they name are told once the transaction is over and its commit is durable (group commit), so a read
 *   that follows sees it. One process writes to a SQLite file, so this process sees every change.
 * A signal is only a wake-up: the listener reads the run again, and a signal for a change rolled back or
 * already seen costs one read.
 */
export class RunChangeSignals {
  private readonly listeners = new Map<string, Set<RunChangeListener>>();
  private stopListening: (() => Promise<void>) | undefined;
  private pending = new Set<string>();
  private flushing = false;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly databaseUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts the signals; idempotent. */
  start(): void {
    if (this.stopListening) return;
    if (this.handle.dialect === 'postgres') {
      const listener = listen(this.databaseUrl, RUN_CHANGES_CHANNEL, (payload) => this.emit(payload || undefined), this.log);
      this.stopListening = () => listener.stop();
      return;
    }
    const sqlite = this.handle.sqlite;
    if (!sqlite) return;
    sqlite.function('teamstage_run_changed', { deterministic: false }, (workspaceId: unknown) => {
      if (typeof workspaceId === 'string') this.pending.add(workspaceId);
      this.scheduleFlush();
      return null;
    });
    // TEMP: in this connection only, so no other process (a backup, `teamstage migrate`) ever calls a function it lacks.
    sqlite.exec(`
      create temp trigger if not exists teamstage_runs_changed after update of status on main.runs
        when old.status is not new.status
        begin select teamstage_run_changed(new.workspace_id); end;
      create temp trigger if not exists teamstage_runs_inserted after insert on main.runs
        begin select teamstage_run_changed(new.workspace_id); end;
      create temp trigger if not exists teamstage_task_stages_changed after update of status on main.task_stages
        when old.status is not new.status
        begin select teamstage_run_changed((select workspace_id from main.runs where id = new.run_id)); end;
    `);
    this.stopListening = async () => {
      sqlite.exec('drop trigger if exists temp.teamstage_runs_changed; drop trigger if exists temp.teamstage_runs_inserted; drop trigger if exists temp.teamstage_task_stages_changed;');
    };
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }

  /** Calls `listener` on every change in the workspace (and on "anything may have changed"); answers the unsubscribe. */
  subscribe(workspaceId: string, listener: RunChangeListener): () => void {
    let set = this.listeners.get(workspaceId);
    if (!set) this.listeners.set(workspaceId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(workspaceId) === set) this.listeners.delete(workspaceId);
    };
  }

  private emit(workspaceId: string | undefined): void {
    const targets = workspaceId === undefined ? [...this.listeners.values()] : [this.listeners.get(workspaceId)].filter((set) => set !== undefined);
    for (const set of targets) for (const listener of [...set]) listener(workspaceId);
  }

  /**
   * SQLite: the trigger fires inside the transaction. Tell nobody until the transaction is over (checked
   * each event loop turn: Kysely runs a transaction's statements across turns) and its commit durable.
   */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    const check = () => {
      if (this.handle.sqlite?.inTransaction) {
        setImmediate(check);
        return;
      }
      const done = this.pending;
      this.pending = new Set();
      this.flushing = false;
      void Promise.resolve(this.handle.durable?.())
        .catch(() => {})
        .then(() => {
          for (const workspaceId of done) this.emit(workspaceId);
        });
    };
    setImmediate(check);
  }
}
