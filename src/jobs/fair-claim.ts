import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Database } from '../db/schema.js';

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

/**
 * Claims due jobs of a lane in turn across organizations, each within its share on this node.
 *
 * Every due, free job is numbered within its organization in time order (`place`); added to the jobs
 * the organization already runs on this node (`held`, passed in as JSON: the node knows them exactly,
 * and counting lease rows instead would also count finished jobs whose rows are not deleted yet), that
 * is the slot the job would take in the organization's share. Jobs beyond the share are not claimed,
 * and the rest are taken lowest slot first: the first job of an organization with nothing in flight
 * goes before the twentieth of one with a backlog, however much older that one is.
 *
 * PostgreSQL: the candidates are locked with SKIP LOCKED, so nodes claim side by side, and the lease
 * condition is repeated on the locked row itself, so a job another node leased since this statement's
 * snapshot is re-checked after its lock and skipped, never leased twice.
 */
export async function claimFairly(db: Kysely<Database>, dialect: Dialect, claim: FairClaim) {
  const { nodeId, lane, limit, perOrganization, now, until } = claim;
  const postgres = dialect === 'postgres';
  const lockClause = postgres ? sql`for update of j skip locked` : sql``;
  const heldJson = JSON.stringify(Object.fromEntries(claim.held));
  const held = postgres
    ? sql`select key as organization_name, value::integer as held from json_each_text(cast(${heldJson} as json))`
    : sql`select key as organization_name, value as held from json_each(${heldJson})`;
  const slot = sql`due.place + coalesce(busy.held, 0)`;
  return sql<{ id: string; kind: string; payload: string; attempts: number; organization_name: string }>`
    update jobs set locked_by = ${nodeId}, locked_until = ${until}, attempts = attempts + 1
    where id in (
      select j.id from jobs j
      join (
        select id, organization_name, run_at,
          row_number() over (partition by organization_name order by run_at, id) as place
        from jobs
        where lane = ${lane} and run_at <= ${now} and (locked_until is null or locked_until < ${now})
      ) due on due.id = j.id
      left join (${held}) busy on busy.organization_name = due.organization_name
      where (j.locked_until is null or j.locked_until < ${now}) and ${slot} <= ${perOrganization}
      order by ${slot}, due.run_at
      limit ${limit} ${lockClause}
    )
    returning id, kind, payload, attempts, organization_name`.execute(db);
}
