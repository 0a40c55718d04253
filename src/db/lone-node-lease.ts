import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** Any constant shared by every node: the advisory lock that orders joins against alone-checks. */
const MEMBERSHIP_LOCK = 0x7465616d; // "team"

export interface LoneNodeOptions {
  /** How long one successful check lets this node believe it is alone; a joining node waits this long. */
  leaseMs?: number;
  /** How often the node renews its heartbeat and checks for others (well below `leaseMs`). */
  checkEveryMs?: number;
  /** How long a heartbeat keeps a node listed after it stops renewing it (a killed node). */
  heartbeatTtlSeconds?: number;
}

/**
 * Knows, exactly, whether this node is the only one using the PostgreSQL database; while it is, every
 * write goes through this process and a local write counter is an exact change signal, as SQLite's
 * change counter is (http/response-cache.ts). With two nodes or more there is no response cache.
 *
 * - Every node lists itself in `cluster_nodes` with a heartbeat that expires (`heartbeatTtlSeconds`),
 *   renewed by the check it runs every `checkEveryMs`. A check that finds no other live node, started at
 *   local time t, lets the node believe it is alone until t + `leaseMs` (its own monotonic clock).
 * - A node joining (or a CLI command about to write) lists itself and then, if any other node is live,
 *   waits `leaseMs` before writing anything: every check that could have missed it started before its
 *   row was committed, so every lease taken by such a check has ended. Only durations are compared, never
 *   clocks of different machines.
 * - When the join finds nobody live, it need not wait: a live node always has a live row, and a node whose
 *   row expired last checked more than `heartbeatTtlSeconds` ago, far longer than its lease. Joins take an
 *   exclusive advisory lock and checks a shared one, so a check and a join never overlap: of the two,
 *   the later one sees the other's row.
 *
 * Fail-safe: a check that fails (database unreachable) does not extend the lease, so the cache stops.
 */
export class LoneNodeLease {
  private aloneUntil = 0;
  /**
   * Moves each time the node becomes alone again after not being sure: while it was not, another node may
   * have written, and a local write count is then no change signal across the gap (a node that joins,
   * writes and leaves within a second would otherwise leave a cached value looking current).
   */
  private epoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private joined = false;
  private readonly leaseMs: number;
  private readonly checkEveryMs: number;
  private readonly ttlSeconds: number;

  constructor(
    private readonly pool: pg.Pool,
    readonly nodeId: string,
    options: LoneNodeOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 2000;
    this.checkEveryMs = options.checkEveryMs ?? 500;
    this.ttlSeconds = options.heartbeatTtlSeconds ?? 10;
  }

  /** True while this node may rely on being the only one writing to the database. */
  isAlone(): boolean {
    return performance.now() < this.aloneUntil;
  }

  /** While alone: a number that stays the same for as long as the node has been alone without a gap. */
  aloneEpoch(): number | undefined {
    return this.isAlone() ? this.epoch : undefined;
  }

  private extendLease(until: number): void {
    if (!this.isAlone()) this.epoch += 1;
    this.aloneUntil = until;
  }

  /**
   * Lists this node; waits `leaseMs` when other nodes are live. Call before this process writes
   * anything. Before the first migration the table does not exist, and then no node can be caching:
   * answers false, and the caller joins again after migrating.
   */
  async join(): Promise<boolean> {
    if (this.joined) return true;
    const started = performance.now();
    let others: number;
    try {
      others = await this.beat('exclusive');
    } catch (error) {
      if ((error as { code?: string }).code === '42P01') return false; // undefined_table: not migrated yet
      throw error;
    }
    this.joined = true;
    if (others > 0) await sleep(this.leaseMs);
    else this.extendLease(started + this.leaseMs);
    return true;
  }

  /** Renews the heartbeat and the lease every `checkEveryMs` until `leave()`. */
  start(): void {
    if (this.timer) return;
    const check = async () => {
      const started = performance.now();
      try {
        const others = await this.beat('shared');
        if (others === 0) this.extendLease(started + this.leaseMs);
        else this.aloneUntil = 0;
      } catch {
        this.aloneUntil = 0;
      }
    };
    this.timer = setInterval(() => void check(), this.checkEveryMs);
    this.timer.unref();
  }

  /** Stops believing it is alone, then removes this node from the list (graceful shutdown). */
  async leave(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.aloneUntil = 0;
    if (!this.joined) return;
    this.joined = false;
    await this.pool.query('delete from cluster_nodes where id = $1', [this.nodeId]).catch(() => {});
  }

  /** One transaction: the advisory lock, this node's heartbeat, and how many other nodes are live. */
  private async beat(lock: 'exclusive' | 'shared'): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query(lock === 'exclusive' ? 'select pg_advisory_xact_lock($1)' : 'select pg_advisory_xact_lock_shared($1)', [MEMBERSHIP_LOCK]);
      await client.query(
        `insert into cluster_nodes (id, expires_at) values ($1, now() + make_interval(secs => $2))
         on conflict (id) do update set expires_at = excluded.expires_at`,
        [this.nodeId, this.ttlSeconds],
      );
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from cluster_nodes where id <> $1 and expires_at > now()', [this.nodeId]);
      await client.query('commit');
      return rows[0]!.n;
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}
