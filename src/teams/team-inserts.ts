import DataLoader from 'dataloader';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import type { AuditTrailRow } from '../record/audit-trail.js';
import type { TeamRow, TeamsRepository } from './teams.repository.js';

/** A team to insert and its audit trail entry. */
interface NewTeam {
  row: TeamRow;
  audit: AuditTrailRow;
}

/** How a new team's insert ended: it is in the table, or a team of that name already was. */
export type TeamInsertOutcome = 'inserted' | 'name-taken';

/** Batches that may wait on the database at once; later inserts gather behind them. */
const MAX_BATCHES_IN_FLIGHT = 2;
const MAX_BATCH_SIZE = 64;

/**
 * Team creations that arrive together are written together: one multi-row INSERT and one commit for all
 * the creations that queued while earlier batches were on their way (group commit). Under concurrent
 * POST /teams this divides the per-statement cost of the database (parse, commit, WAL flush, the count
 * trigger's row) and of the driver among them. A lone request goes out at once, in a batch of one.
 *
 * Each team's audit trail entry is written in its batch's transaction, only for the rows it inserted.
 *
 * Each caller learns its own outcome: the batch reports which rows it inserted, and a row it skipped
 * met the unique name. If the batch fails as a whole (say a foreign key, when its organization was
 * deleted meanwhile), each row is inserted again on its own, so one bad row fails only its request.
 */
export class TeamInserts {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly loader: DataLoader<NewTeam, TeamInsertOutcome, string>;

  constructor(
    private readonly teams: TeamsRepository,
    private readonly auditTrail: AuditTrailRecorder,
  ) {
    this.loader = new DataLoader((rows) => this.run(rows), {
      cache: false,
      maxBatchSize: MAX_BATCH_SIZE,
      batchScheduleFn: (dispatch) => this.schedule(dispatch),
    });
  }

  /** `audit`: the team's audit trail entry, written in the batch's transaction when the team is. */
  insert(row: TeamRow, audit: AuditTrailRow): Promise<TeamInsertOutcome> {
    return this.loader.load({ row, audit });
  }

  /** A batch goes out on the next turn (so the requests read in this one join it) or when a slot frees. */
  private schedule(dispatch: () => void): void {
    if (this.inFlight < MAX_BATCHES_IN_FLIGHT) {
      this.inFlight += 1;
      setImmediate(dispatch);
    } else {
      this.waiting.push(dispatch);
    }
  }

  private async run(rows: readonly NewTeam[]): Promise<Array<TeamInsertOutcome | Error>> {
    try {
      return await this.insertAll(rows);
    } finally {
      const next = this.waiting.shift();
      if (next) setImmediate(next);
      else this.inFlight -= 1;
    }
  }

  private async insertAll(rows: readonly NewTeam[]): Promise<Array<TeamInsertOutcome | Error>> {
    let inserted: Set<string>;
    try {
      inserted = await this.teams.insertUnlessNameTaken(
        rows.map(({ row }) => row),
        (trx, ids) => this.auditTrail.record(trx, ...rows.filter(({ row }) => ids.has(row.id)).map(({ audit }) => audit)),
      );
    } catch (error) {
      if (rows.length === 1) return [error as Error];
      return Promise.all(rows.map((row) => this.insertAll([row]).then(([outcome]) => outcome!)));
    }
    return rows.map(({ row }) => (inserted.has(row.id) ? 'inserted' : 'name-taken'));
  }
}
