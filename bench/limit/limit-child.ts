/** The entry of a limit server's own process (limit-process.ts), apart from the load generator as Teamstage is. */
import { startPgLimitServer } from './pg-limit-server.js';
import { startSqliteLimitServer } from './sqlite-limit-server.js';

process.once('message', async (spec: { kind: 'sqlite' | 'postgres'; target: string }) => {
  const server = spec.kind === 'sqlite' ? await startSqliteLimitServer(spec.target) : await startPgLimitServer(spec.target);
  process.once('disconnect', () => void server.close().finally(() => process.exit(0)));
  process.send!({ url: server.url });
});
