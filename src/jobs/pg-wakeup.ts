import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { NOTIFY_CHANNEL } from './job-queue.js';

/**
 * LISTEN on a dedicated connection: a notification only wakes the worker; the table stays the truth, and
 * the worker's periodic poll covers anything missed while this connection was down.
 */
export function listenForJobs(databaseUrl: string, onNotify: (payload?: string) => void, log: FastifyBaseLogger): { stop(): Promise<void> } {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => onNotify(message.payload));
    next.on('error', (error) => {
      log.warn({ err: error }, 'job notification connection lost; reconnecting');
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (stopped) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      onNotify(); // catch up on anything enqueued while we were not listening
    } catch (error) {
      log.warn({ err: error }, 'could not listen for job notifications; polling until it works');
      await next.end().catch(() => {});
      scheduleReconnect();
    }
  };

  const scheduleReconnect = () => {
    const old = client;
    client = undefined;
    void old?.end().catch(() => {});
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, 1000);
    retryTimer.unref();
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => {});
    },
  };
}
