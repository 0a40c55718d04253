import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/**
 * PostgreSQL connections of their own for the node's background work (the job worker: claims, run
 * progress, task deliveries), apart from the pool that serves API requests.
 *
 * With one pool, a run's way to its task service queued behind API requests at every statement: under 50
 * busy connections all ten pool connections are taken by requests, and each of the job's statements
 * (claim, the transaction that opens the stage, the delivery's own) first waited its turn among them.
 * What a person waiting on a run feels (issue 18's gate latency) then grew with the API traffic of everybody
 * else. Work started inside `run` (and everything it awaits, through AsyncLocalStorage) takes connections
 * from the background pool; everything else from the request pool. Neither can use up the other's.
 */
export class BackgroundPool {
  readonly #background = new AsyncLocalStorage<true>();

  /** Runs `work`, and what it starts, on the background pool's connections. */
  run<T>(work: () => T): T {
    return this.#background.run(true, work);
  }

  /**
   * The two pools as one chooser (for preparingPool): the background pool for work started inside `run`, the
   * requests pool for everything else. Made apart from the constructor because the pools are made only once
   * pg is loaded (pg-module.ts), on the first query.
   */
  chooser(requests: pg.Pool, backgroundWork: pg.Pool): { choose(): pg.Pool; all: pg.Pool[] } {
    return { choose: () => (this.#background.getStore() ? backgroundWork : requests), all: [requests, backgroundWork] };
  }
}
