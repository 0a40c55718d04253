#!/usr/bin/env node
import fs from 'node:fs';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { joinAndMigrate } from './db/migrate.js';
import { rotateSiteToken, siteTokenFile } from './identity/site-token.js';
import { TokensRepository } from './identity/tokens.repository.js';
import { serve } from './main.js';
import { explainStartupFailure } from './ops/startup-failure.js';
import { startLog } from './ops/start-log.js';
import { runPipeline } from './pipeline/pipeline-command.js';
import { backupCommand, restoreCommand } from './ops/backup-commands.js';
import { BUILD_VERSION } from './core/version.js';

const USAGE = `teamstage ${BUILD_VERSION}

Usage:
  teamstage serve            run the server (migrates first)
  teamstage --version        print the build: package version and commit
  teamstage migrate          apply database migrations and exit
  teamstage token print      print the generated site admin token (from <data dir>/site-token)
  teamstage token rotate     replace the site admin token with a new one and print it
  teamstage pipeline …       a CI pipeline's plan and apply through Teamstage's gate ("teamstage pipeline help")
  teamstage backup <file>    copy the SQLite database to <file> while servers run
  teamstage restore <file>   replace the SQLite database with a backup (every server stopped)

Configuration comes from the environment; see docs/configuration.md.`;

async function main(argv: string[]): Promise<number> {
  const [command, subcommand] = argv;
  if (command === '--version' || command === 'version') {
    console.log(`teamstage ${BUILD_VERSION}`);
    return 0;
  }
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  // A client of a server elsewhere: reads none of the server's configuration.
  if (command === 'pipeline') return runPipeline(argv.slice(1));
  const config = loadConfig();
  try {
    return await run(command, subcommand, config);
  } catch (error) {
    // Where the data lives is the operator's to fix: one line saying what and where, no stack trace.
    const explained = explainStartupFailure(error, config);
    if (!explained) throw error;
    console.error(explained);
    return 1;
  }
}

async function run(command: string, subcommand: string | undefined, config: Config): Promise<number> {
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keep running
    case 'migrate': {
      const handle = openDatabase(config.databaseUrl);
      const applied = await joinAndMigrate(handle, startLog(config.logLevel));
      await handle.close();
      console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'already up to date');
      return 0;
    }
    case 'token': {
      if (subcommand === 'print') {
        const file = siteTokenFile(config.dataDir);
        if (!fs.existsSync(file)) {
          console.error(`no generated site token at ${file} (tokens are stored hashed; use "teamstage token rotate")`);
          return 1;
        }
        console.log(fs.readFileSync(file, 'utf8').trim());
        return 0;
      }
      if (subcommand === 'rotate') {
        const handle = openDatabase(config.databaseUrl);
        await joinAndMigrate(handle);
        const { secret, file } = await rotateSiteToken(new TokensRepository(handle.db), config.dataDir);
        await handle.close();
        console.log(secret);
        console.error(`saved to ${file}; the previous site token no longer works`);
        return 0;
      }
      console.error(USAGE);
      return 1;
    }
    case 'backup':
      return backupCommand(subcommand, config);
    case 'restore':
      return restoreCommand(subcommand, config);
    default:
      console.error(USAGE);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : error);
    process.exit(1);
  },
);
