#!/usr/bin/env node
import { runPipeline } from './pipeline-command.js';

/**
 * The standalone pipeline client: `node teamstage-pipeline.mjs <command> …`, the same commands as
 * `teamstage pipeline <command> …`, built into one dependency-free file (scripts/bundle.mjs) that the server
 * serves at /pipeline/teamstage-pipeline.mjs. A leading `pipeline` is accepted too, so scripts written for
 * the `teamstage` command (`$TEAMSTAGE pipeline plan-start …`) work with `TEAMSTAGE="node teamstage-pipeline.mjs"`.
 */
const args = process.argv.slice(2);
runPipeline(args[0] === 'pipeline' ? args.slice(1) : args).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`teamstage pipeline: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
