import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { compiledOnce, compiledPerShape } from '../db/compiled-query.js';
import { rawCompilable } from './raw-compilable.js';

export interface FairClaim {
  nodeId: string;
  lane: string;
  limit: number;
  /** Jobs one organization may run on this node at once. */
  perOrganization: number;
  /** How many each organization runs on this node now (those with none may be left out). */
  held: ReadonlyMap<string, number>;
  now: string;
  until: string;
}

export type ClaimedRow = { id: string; kind: string; payload: string; attempts: number; organization_name: string; last_error: string | null };

/** An organization with due, free jobs in the lane, and when its oldest one became due. */
interface Waiting {
  name: string;
  oldest: string;
  held: number;
}

/**
 * Claims due jobs of a lane in turn across organizations, each within its share on this node.
 *
 * Every job an organization would start takes the next slot of its share: held + 1, held + 2, … up to
 * `perOrganization` (`held`: what it runs on this node now, known exactly in memory). Jobs are taken
 * lowest slot first, then oldest first: the first job of an organization with nothing in flight goes
 * before the twentieth of one with a backlog, however much older that one is.
 *
 * The cost does not grow with a backlog, which is exactly what a flooding organization builds: the
 * organizations come from a skip scan of the (lane, organization_name, run_at) index, one lookup each,
 * and each contributes at most its share's free slots, read from the head of its part of the index.
 * Only the `limit` organizations with the lowest first slot can win a slot, so only they are read.
 *
 * PostgreSQL: the candidates are locked with SKIP LOCKED, so nodes claim side by side, and the lease
 * condition is checked on the locked row itself, so a job another node leased since the organizations
 * were read is skipped, never leased twice.
 *
 * Both statements are compiled once (db/compiled-query.ts), the claim once per number of organizations
 * it reads (at most the lane's slots): a delivery lane claims on nearly every finished delivery.
 */
export class FairClaims {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async claim(claim: FairClaim): Promise<{ rows: ClaimedRow[] }> {
    const { nodeId, lane, limit, perOrganization, now, until } = claim;
    const chosen = (await this.waitingOrganizations(lane, now))
      .map((organization) => ({ ...organization, held: claim.held.get(organization.name) ?? 0 }))
      .filter((organization) => organization.held < perOrganization)
      .sort((a, b) => a.held - b.held || compare(a.oldest, b.oldest))
      .slice(0, limit);
    if (chosen.length === 0) return { rows: [] };
    const params: Record<string, unknown> = { nodeId, lane, limit, now, until };
    chosen.forEach((organization: Waiting, i) => {
      params[`name${i}`] = organization.name;
      params[`held${i}`] = organization.held;
      params[`free${i}`] = Math.min(perOrganization - organization.held, limit);
    });
    return this.claimHeads(this.db, chosen.length, params);
  }

  /** Leases the heads of `organizations` queues, lowest share slot first, then oldest. */
  private readonly claimHeads = compiledPerShape(
    (organizations: number) => String(organizations),
    (organizations: number, p: Record<string, unknown>) => {
      const free = sql`(locked_until is null or locked_until < ${p.now})`;
      const heads = Array.from(
        { length: organizations },
        (_, i) => sql`
          select id, run_at, ${p[`held${i}`]} + row_number() over (order by run_at, id) as slot from (
            select id, run_at from jobs
            where lane = ${p.lane} and organization_name = ${p[`name${i}`]} and run_at <= ${p.now} and ${free}
            order by run_at limit ${p[`free${i}`]}
          ) head`,
      );
      const lockClause = this.dialect === 'postgres' ? sql`for update of j skip locked` : sql``;
      return rawCompilable(
        this.db,
        sql<ClaimedRow>`
          update jobs set locked_by = ${p.nodeId}, locked_until = ${p.until}, attempts = attempts + 1
          where id in (
            select j.id from jobs j
            join (${sql.join(heads, sql` union all `)}) candidate on candidate.id = j.id
            where (j.locked_until is null or j.locked_until < ${p.now})
            order by candidate.slot, candidate.run_at
            limit ${p.limit} ${lockClause}
          )
          returning id, kind, payload, attempts, organization_name, last_error`,
      );
    },
  );

  /**
   * Organizations with due, free jobs in the lane. A recursive skip scan: each step finds the next
   * organization name in the index, then the oldest due free job of it, two index lookups per
   * organization, however many jobs each one has queued.
   */
  private async waitingOrganizations(lane: string, now: string): Promise<Array<{ name: string; oldest: string }>> {
    const { rows } = await this.waitingOrganizationsQuery(this.db, { lane, now });
    return rows.filter((row): row is { name: string; oldest: string } => row.oldest !== null);
  }

  private readonly waitingOrganizationsQuery = compiledOnce((p: { lane: string; now: string }) =>
    rawCompilable(
      this.db,
      sql<{ name: string; oldest: string | null }>`
        with recursive organizations(name) as (
          select min(organization_name) from jobs where lane = ${p.lane}
          union all
          select (select min(organization_name) from jobs where lane = ${p.lane} and organization_name > organizations.name)
          from organizations where organizations.name is not null
        )
        select name, (
          select run_at from jobs
          where lane = ${p.lane} and organization_name = organizations.name and run_at <= ${p.now} and (locked_until is null or locked_until < ${p.now})
          order by run_at limit 1
        ) as oldest
        from organizations where name is not null`,
    ),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
