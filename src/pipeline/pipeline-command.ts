import { parseArgs } from 'node:util';
import { ciSafeText } from './ci-safe-text.js';
import { EXIT, PipelineError, usageError } from './exit-codes.js';
import { applyFinish, applyStart, planFinish, planStart, waitForRun } from './pipeline-steps.js';
import type { FollowContext, WaitOptions } from './run-follower.js';
import { processOutput, type Output } from './stage-report.js';
import { retryDelaysMs, TeamstageClient } from './teamstage-client.js';

export const PIPELINE_USAGE = `Usage: teamstage pipeline <command> [options]

Runs a Terraform pipeline's plan and apply through Teamstage's gate (docs/pipeline.md, "Gate your pipeline").
Environment: TEAMSTAGE_ADDRESS (e.g. https://teamstage.example.com) and TEAMSTAGE_TOKEN (a token that may
queue runs in the workspace, which must have execution-mode "agent").

Commands:
  plan-start    --organization ORG --workspace NAME [--config-dir DIR] [--message TEXT] [--plan-only]
                (or TEAMSTAGE_ORGANIZATION / TEAMSTAGE_WORKSPACE; --workspace also takes a ws- id)
                Uploads DIR (default .) as the configuration, as terraform's cloud block packs it (.terraformignore
                and its defaults: no .git/, no .terraform/ but its modules/), never with state files, saved plans,
                terraform's JSON output, logs or this client; creates a run, waits for its pre-plan stage and claims
                the plan. Prints the run id.
  plan-start    --run RUN              claims the plan of an existing run (after a pre-plan override)
  plan-finish   --run RUN --plan-json FILE [--log FILE]
                Hands over the output of \`terraform show -json\` and the plan log, reports the plan finished
                and waits for the post-plan verdict. Prints the run status (planned_and_finished: nothing to apply).
  plan-finish   --run RUN --error MESSAGE [--log FILE]       reports the plan errored
  apply-start   --run RUN [--no-confirm]
                Confirms the apply (--no-confirm: waits for a person to), waits for the pre-apply stage and
                claims the apply.
  apply-finish  --run RUN [--log FILE] [--error MESSAGE]
                Hands over the apply log, reports, waits for the post-apply stage. Prints the run status.
  wait          --run RUN
                Waits until the run needs the pipeline again (e.g. after an override). Prints the run status.

Waiting (every command): the server answers a waiting read as soon as the run changes.
  --poll-interval SECONDS (25): the longest one waiting read lasts; --timeout SECONDS (3600);
  --override-wait SECONDS (0): how long to keep waiting while a stage awaits an override.

Exit codes: 0 the run may proceed (or finished) · 1 the run failed (errored, canceled, discarded, a stage
failed) · 2 usage, transport error or timeout · 3 a stage awaits an override: a person decides, then
\`teamstage pipeline wait --run RUN\`.`;

const COMMANDS = ['plan-start', 'plan-finish', 'apply-start', 'apply-finish', 'wait'] as const;
type Command = (typeof COMMANDS)[number];

const OPTIONS = {
  run: { type: 'string' },
  organization: { type: 'string' },
  workspace: { type: 'string' },
  'config-dir': { type: 'string' },
  message: { type: 'string' },
  'plan-only': { type: 'boolean' },
  'plan-json': { type: 'string' },
  log: { type: 'string' },
  error: { type: 'string' },
  'no-confirm': { type: 'boolean' },
  'poll-interval': { type: 'string' },
  timeout: { type: 'string' },
  'override-wait': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which options each command takes besides the waiting ones; anything else is a usage error. */
const ALLOWED: Record<Command, string[]> = {
  'plan-start': ['run', 'organization', 'workspace', 'config-dir', 'message', 'plan-only'],
  'plan-finish': ['run', 'plan-json', 'log', 'error'],
  'apply-start': ['run', 'no-confirm'],
  'apply-finish': ['run', 'log', 'error'],
  wait: ['run'],
};
const WAITING = ['poll-interval', 'timeout', 'override-wait', 'help'];

/**
 * `teamstage pipeline …`: answers the exit code. Every line it prints passes through ciSafeText, since much
 * of it comes from the server and the run task services (ci-safe-text.ts).
 */
export async function runPipeline(argv: string[], env: NodeJS.ProcessEnv = process.env, sink: Output = processOutput): Promise<number> {
  const out: Output = { info: (line) => sink.info(ciSafeText(line)), result: (line) => sink.result(ciSafeText(line)) };
  try {
    return await dispatch(argv, env, out);
  } catch (error) {
    if (error instanceof PipelineError) {
      out.info(`teamstage pipeline: ${error.message}`);
      return error.code;
    }
    out.info(`teamstage pipeline: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.usage;
  }
}

async function dispatch(argv: string[], env: NodeJS.ProcessEnv, out: Output): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    out.info(PIPELINE_USAGE);
    return command === undefined ? EXIT.usage : EXIT.proceed;
  }
  if (!(COMMANDS as readonly string[]).includes(command)) throw usageError(`unknown command "${command}"\n\n${PIPELINE_USAGE}`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw usageError(`${(error as Error).message}\n\n${PIPELINE_USAGE}`);
  }
  if (values.help) {
    out.info(PIPELINE_USAGE);
    return EXIT.proceed;
  }
  const name = command as Command;
  const stray = Object.keys(values).filter((key) => values[key] !== undefined && !ALLOWED[name].includes(key) && !WAITING.includes(key));
  if (stray.length > 0) throw usageError(`${name} does not take ${stray.map((key) => `--${key}`).join(', ')}`);
  const string = (key: string) => values[key] as string | undefined;
  const run = string('run');
  if (name !== 'plan-start' && !run) throw usageError(`${name} needs --run RUN (the id plan-start printed)`);
  const context = contextOf(env, out, values);
  switch (name) {
    case 'plan-start':
      return planStart(context, {
        run,
        organization: string('organization') ?? env.TEAMSTAGE_ORGANIZATION,
        workspace: string('workspace') ?? env.TEAMSTAGE_WORKSPACE,
        configDir: string('config-dir') ?? '.',
        message: string('message') ?? 'Queued by teamstage pipeline',
        planOnly: values['plan-only'] === true,
      });
    case 'plan-finish':
      return planFinish(context, { run: run!, planJson: string('plan-json'), log: string('log'), error: string('error') });
    case 'apply-start':
      return applyStart(context, { run: run!, confirm: values['no-confirm'] !== true });
    case 'apply-finish':
      return applyFinish(context, { run: run!, log: string('log'), error: string('error') });
    case 'wait':
      return waitForRun(context, { run: run! });
  }
}

function contextOf(env: NodeJS.ProcessEnv, out: Output, values: Record<string, string | boolean | undefined>): FollowContext {
  const address = env.TEAMSTAGE_ADDRESS;
  const token = env.TEAMSTAGE_TOKEN;
  if (!address || !/^https?:\/\/[^/]/.test(address)) throw usageError('TEAMSTAGE_ADDRESS must be the server\'s http(s) URL, e.g. https://teamstage.example.com');
  if (!token) throw usageError('TEAMSTAGE_TOKEN is not set (a token that may queue runs in the workspace)');
  const seconds = (key: string, fallback: number, minimum: number) => {
    const raw = values[key] as string | undefined;
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < minimum) throw usageError(`--${key} must be a number of seconds ≥ ${minimum}, not "${raw}"`);
    return value;
  };
  const wait: WaitOptions = {
    pollMs: seconds('poll-interval', 25, 0.01) * 1000,
    timeoutMs: seconds('timeout', 3600, 0) * 1000,
    overrideWaitMs: seconds('override-wait', 0, 0) * 1000,
  };
  return { client: new TeamstageClient(address, token, retryDelaysMs(env.TEAMSTAGE_PIPELINE_RETRY_DELAYS)), out, wait };
}
