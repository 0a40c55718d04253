import type pg from 'pg';
import { loadPg } from './pg-module.js';
import type { FastifyBaseLogger } from 'fastify';

/**
 * LISTEN on one channel, on a dedicated connection: a notification only wakes someone up; the tables stay the
 * truth. After every (re)connection `onNotify()` is called without a payload, since notifications sent while
 * the connection was down are lost: the listener looks at the tables instead. Used for jobs
 * (jobs/pg-wakeup.ts) and run changes (db/run-change-signals.ts).
 */
export function listen(
  databaseUrl: string,
  channel: string,
  onNotify: (payload?: string) => void,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (stopped) return;
    const next = new (await loadPg()).Client({ connectionString: databaseUrl });
    next.on('notification', (message) => onNotify(message.payload));
    next.on('error', (error) => {
      log.warn({ err: error, channel }, 'notification connection lost; reconnecting');
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      if (stopped) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      onNotify(); // catch up on anything sent while we were not listening
    } catch (error) {
      log.warn({ err: error, channel }, 'could not listen for notifications; polling until it works');
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
