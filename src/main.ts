import type { Server as TlsServer } from 'node:tls';
import { BUILD_VERSION } from './core/version.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { joinAndMigrate } from './db/migrate.js';
import { probeWrite } from './db/write-probe.js';
import { reloadTlsOnHangup } from './http/tls-certificate.js';
import { ensureSiteToken } from './identity/site-token.js';
import { TokensRepository } from './identity/tokens.repository.js';
import { inStartTransaction } from './db/start-transaction.js';
import { startLog } from './ops/start-log.js';
import { probeOpaAhead } from './policies/opa-probe.js';
import { checkPortFree, checkTempDirectoryWritable, listenFailure } from './ops/start-checks.js';

function reportSlowQuery(sql: string, durationMs: number): void {
  process.stderr.write(`${JSON.stringify({ level: 40, msg: 'slow query', durationMs: Math.round(durationMs * 10) / 10, sql })}\n`);
}

/**
 * Starts one node: database, migrations, site token, HTTP. SIGTERM/SIGINT: see stop() below; exit 0.
 */
export async function serve(config: Config): Promise<void> {
  // OPA's version and capabilities are asked first, and answered while the database opens and migrates, rather than
  // by two synchronous commands on the way to listening (probeOpaAhead).
  const opaProbed = probeOpaAhead(config.policies.opaPath);
  // Checks that need no database first: a failure here leaves nothing written and nothing printed.
  await checkPortFree(config.host, config.port);
  checkTempDirectoryWritable();
  const slowQueries = config.slowQueryMs > 0 ? { slowQueryMs: config.slowQueryMs, onSlowQuery: reportSlowQuery } : {};
  const handle = openDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous, ...slowQueries });
  const log = startLog(config.logLevel);
  // The first line of every start: which build, on which kind of database (never the URL: it holds a password).
  log('starting', { version: BUILD_VERSION, database: handle.dialect, pid: process.pid, hostname: config.nodeName });
  await joinAndMigrate(handle, log);
  // A database that takes no writes (a read-only file, a standby, a full disk) stops the start here, with its reason.
  await probeWrite(handle);
  const siteToken = await inStartTransaction(handle, (db) =>
    ensureSiteToken(new TokensRepository(db), { configured: config.siteToken, dataDir: config.dataDir }),
  );
  await opaProbed;
  const { app, services } = await buildApp({ config, handle });
  // Said at every start: whether this node can judge policies (issue 29), and with what.
  if (services.policyEngine.available) app.log.info({ engine: services.policyEngine.description }, 'policy engine ready');
  else app.log.warn({ reason: services.policyEngine.description }, 'no policy engine: policies and policy sets are refused, and runs whose workspace has policy sets get errored evaluations');
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    throw listenFailure(error, config.host, config.port) ?? error;
  }
  if (config.tls) reloadTlsOnHangup(app.server as unknown as TlsServer, config.tls, app.log);
  if (siteToken.generated) {
    await handle.durable?.(); // the token is on disk before anyone is shown it
    // Printed once, to the terminal only (never through the logger), and kept in a 0600 file; only once the
    // server listens, so a start that fails never shows a token for a server that is not there.
    // One JSON line like every other (issue 40), written directly rather than through the logger so that no
    // transport, level or redaction setting changes where the token goes.
    process.stdout.write(
      `${JSON.stringify({ level: 30, time: Date.now(), msg: `Site admin token (shown once, also saved to ${siteToken.file})`, token: siteToken.generated })}\n`,
    );
  }
  // Where to go next, for the person who just started it: the console's address (the API is under it).
  // A JSON line (issue 40), written directly so that it shows at every LOG_LEVEL, as the start always did.
  const listening = `Teamstage is listening on ${address}. Web console: ${config.baseUrl}/app/`;
  process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), hostname: config.nodeName, msg: listening, address, console: `${config.baseUrl}/app/` })}\n`);

  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  let stopping = false;
  /**
   * A stop in seconds (issue 40): at once, no new jobs are claimed and open run waits answer; the HTTP server
   * stops accepting and finishes its requests while running jobs get TEAMSTAGE_STOP_GRACE; jobs still running
   * then are abandoned and every lease goes back at once (another node is notified and takes them now).
   */
  async function stop(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    const started = performance.now();
    const graceMs = config.jobs.stopGraceSeconds * 1000;
    app.log.info({ signal, graceSeconds: config.jobs.stopGraceSeconds }, 'stopping: no new work; running jobs get the grace, then go to another node');
    // A stop that hangs anyway (a database that stopped answering) ends here rather than at the orchestrator's kill.
    setTimeout(() => process.exit(1), graceMs + 5_000).unref();
    try {
      services.runWaits.stop();
      const [jobs] = await Promise.all([services.jobs.stop(graceMs), app.close()]);
      await handle.close();
      app.log.info({ ...jobs, seconds: Math.round(performance.now() - started) / 1000 }, 'stopped');
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'stop failed');
      process.exit(1);
    }
  }
}
