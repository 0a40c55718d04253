import assert from 'node:assert/strict';
import type { Dialect } from '../../src/db/database.js';
import type { ApiClient } from './api-client.js';
import { createOrganization, unique, type TestOrganization } from './fixtures.js';
import { MockTaskService, type RecordedTaskRequest } from './mock-task-service.js';
import { freePort } from './postgres-server.js';
import { attachRunTask, createRun, createRunnableWorkspace, createRunTask } from './run-fixtures.js';
import { createTestApp, type TestAppOptions, type TestContext } from './test-app.js';
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';

export const HMAC_KEY = 'run-task-hmac-key-for-tests';

/**
 * How the scripted task service treats a request, chosen by the workspace name's first word
 * (`fail-…`, `silent-…`): what it answers, and what it calls back afterwards.
 */
export type Behavior =
  | 'pass' // 200, then `passed`
  | 'fail' // 200, then `failed` with two outcomes
  | 'progress' // 200, `running`, a pause, then `passed`
  | 'silent' // 200 and no callback
  | 'error500' // 500 every time
  | 'download' // 200; downloads the configuration and plan with and without the token; then `passed`
  | 'heartbeat' // 200, then `running` every 250 ms until refused (never a verdict)
  | 'flaky' // 500 to the first request but calls back `running` at once, then `passed`; 200 to any later request
  | 'hostile'; // 200, then `failed` with CI runner commands and ANSI escapes in its message and outcome (HOSTILE_*)

export const FAIL_OUTCOMES = [
  {
    type: 'task-result-outcomes',
    attributes: {
      'outcome-id': 'PRTNR-CC-TF-127',
      description: 'S3 bucket will not enforce MFA login on delete requests',
      body: '# Resolution\n\nEnable MFA delete.',
      url: 'https://external.service.example/result/PRTNR-CC-TF-127',
      tags: {
        Status: [{ label: 'Denied', level: 'error' }],
        Severity: [{ label: 'High', level: 'error' }, { label: 'Recoverable', level: 'info' }],
      },
    },
  },
  { type: 'task-result-outcomes', attributes: { 'outcome-id': 'PRTNR-CC-TF-128', description: 'Second finding' } },
];

/** What the `hostile` behavior writes: a CI log reading this verbatim would run commands and recolour. */
export const HOSTILE_MESSAGE = '\u001b[31mdenied\u001b[0m\n::add-mask::hunter2\r::stop-commands::pwned\n  ##vso[task.setvariable variable=x]1';
export const HOSTILE_OUTCOME = {
  type: 'task-result-outcomes',
  attributes: {
    'outcome-id': 'EVIL-1',
    description: 'bad\n::error file=main.tf::injected\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
    url: 'https://external.service.example/r/evil',
    tags: { Severity: [{ label: '\u001b[2Jhigh', level: 'error' }] },
  },
};

export interface CallbackRecord {
  resultId: string;
  status: string;
  httpStatus: number;
}

export interface DownloadRecord {
  resultId: string;
  configurationWithToken: number;
  configurationWithoutToken: number;
  configurationWrongToken: number;
  planWithToken: number | undefined;
  planWithoutToken: number | undefined;
  /** Same requests after the result was final: both must be refused. */
  configurationAfterFinal?: number;
  planAfterFinal?: number;
}

/**
 * A real run task service on 127.0.0.1 (MockTaskService) that behaves by workspace name and calls
 * back over real HTTP, recording what it was answered.
 */
export class ScriptedTaskService {
  readonly callbacks: CallbackRecord[] = [];
  readonly downloads: DownloadRecord[] = [];
  /** Every access token received, by result, for tests that call back themselves. */
  readonly tokens = new Map<string, string[]>();
  private pending = new Set<Promise<unknown>>();

  private constructor(readonly mock: MockTaskService) {}

  static async start(): Promise<ScriptedTaskService> {
    let scripted!: ScriptedTaskService;
    const mock = await MockTaskService.start({ hmacKey: HMAC_KEY, respond: (request) => scripted.respond(request) });
    scripted = new ScriptedTaskService(mock);
    return scripted;
  }

  get url(): string {
    return this.mock.url;
  }

  /** Requests that are deliveries (not the verification request of task creation). */
  deliveries(resultId?: string): RecordedTaskRequest[] {
    return this.mock.requests.filter(
      (request) => request.json?.stage !== 'test' && (resultId === undefined || request.json?.task_result_id === resultId),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    await this.mock.close();
  }

  private respond(request: RecordedTaskRequest) {
    const payload = request.json;
    if (!payload || payload.stage === 'test') return { status: 200 };
    const resultId = payload.task_result_id as string;
    this.tokens.set(resultId, [...(this.tokens.get(resultId) ?? []), payload.access_token]);
    const behavior = String(payload.workspace_name).split('-')[0] as Behavior;
    if (behavior === 'error500') return { status: 500 };
    if (behavior === 'flaky' && this.tokens.get(resultId)!.length === 1) {
      const work = this.flaky(payload).catch(() => {});
      this.pending.add(work);
      void work.finally(() => this.pending.delete(work));
      return { status: 500 };
    }
    if (behavior === 'flaky') return { status: 200 };
    const work = this.afterAnswer(behavior, payload).catch(() => {});
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
    return { status: 200 };
  }

  private async afterAnswer(behavior: Behavior, payload: any): Promise<void> {
    // Let the 200 reach Teamstage first, as a real service would.
    await sleep(30);
    switch (behavior) {
      case 'pass':
        await this.callBack(payload, { status: 'passed', message: 'all good' });
        return;
      case 'fail':
        await this.callBack(payload, { status: 'failed', message: 'two findings\nsee outcomes', url: 'https://external.service.example/r/1' }, FAIL_OUTCOMES);
        return;
      case 'progress':
        await this.callBack(payload, { status: 'running', message: 'checking' });
        await sleep(150);
        await this.callBack(payload, { status: 'passed', message: 'done' });
        return;
      case 'download': {
        const record: DownloadRecord = {
          resultId: payload.task_result_id,
          configurationWithToken: await status(payload.configuration_version_download_url, payload.access_token),
          configurationWithoutToken: await status(payload.configuration_version_download_url, undefined),
          configurationWrongToken: await status(payload.configuration_version_download_url, `${payload.access_token}x`),
          planWithToken: payload.plan_json_api_url ? await status(payload.plan_json_api_url, payload.access_token) : undefined,
          planWithoutToken: payload.plan_json_api_url ? await status(payload.plan_json_api_url, undefined) : undefined,
        };
        await this.callBack(payload, { status: 'passed', message: 'downloaded' });
        record.configurationAfterFinal = await status(payload.configuration_version_download_url, payload.access_token);
        if (payload.plan_json_api_url) record.planAfterFinal = await status(payload.plan_json_api_url, payload.access_token);
        this.downloads.push(record);
        return;
      }
      case 'hostile':
        await this.callBack(payload, { status: 'failed', message: HOSTILE_MESSAGE }, [HOSTILE_OUTCOME]);
        return;
      case 'heartbeat':
        for (let beat = 0; beat < 80; beat++) {
          if ((await this.callBack(payload, { status: 'running', message: `beat ${beat}` })) !== 200) return;
          await sleep(250);
        }
        return;
      case 'silent':
      case 'error500':
      case 'flaky':
        return;
    }
  }

  /** The time `running` was acknowledged, per result (flaky behavior). */
  readonly runningAcknowledgedAt = new Map<string, number>();

  private async flaky(payload: any): Promise<void> {
    if ((await this.callBack(payload, { status: 'running', message: 'got it despite the 500' })) === 200) {
      this.runningAcknowledgedAt.set(payload.task_result_id, Date.now());
    }
    await sleep(400);
    await this.callBack(payload, { status: 'passed', message: 'passed after a 500' });
  }

  async callBack(payload: any, attributes: Record<string, unknown>, outcomes?: unknown[]): Promise<number> {
    const body: any = { data: { type: 'task-results', attributes } };
    if (outcomes) body.data.relationships = { outcomes: { data: outcomes } };
    const response = await fetch(payload.task_result_callback_url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    this.callbacks.push({ resultId: payload.task_result_id, status: String(attributes.status), httpStatus: response.status });
    return response.status;
  }
}

async function status(url: string, token: string | undefined): Promise<number> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
  await response.arrayBuffer();
  return response.status;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The app over a fresh database, listening on 127.0.0.1 at the port its base URL names, so tasks can call back.
 * The callback timeout is 30 s: a test of the timeout itself sets a short one (a loaded CI machine took over 1 s
 * between a task's `running` and `passed` callbacks, so a 1 s default failed tests that are not about it).
 */
export async function startListeningApp(dialect: Dialect, env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestContext> {
  const port = await freePort();
  const ctx = await createTestApp(dialect, {
    TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
    TEAMSTAGE_TASK_RETRY_DELAYS: '0.1,0.1',
    TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30',
    TEAMSTAGE_TASK_REQUEST_TIMEOUT: '2',
    TEAMSTAGE_JOB_POLL: '0.1',
    ...env,
  }, options);
  await ctx.app.listen({ host: '127.0.0.1', port });
  return ctx;
}

export interface GatedWorkspace {
  org: TestOrganization;
  api: ApiClient;
  workspace: { id: string; name: string; configurationVersionId: string };
  taskId: string;
  workspaceTaskId: string;
}

/** An organization with a workspace named `<behavior>-…` and one run task attached to it. */
export async function gatedWorkspace(
  ctx: TestContext,
  service: { url: string },
  behavior: Behavior,
  options: { enforcement?: EnforcementLevel; stages?: string[]; autoApply?: boolean; org?: TestOrganization; url?: string } = {},
): Promise<GatedWorkspace> {
  const org = options.org ?? (await createOrganization(ctx));
  const api = org.owner.api;
  const workspace = await createRunnableWorkspace(ctx, api, org.name, {
    name: `${behavior}-${unique('ws')}`,
    ...(options.autoApply !== undefined ? { 'auto-apply': options.autoApply } : {}),
  });
  const task = await createRunTask(api, org.name, options.url ?? service.url, { 'hmac-key': HMAC_KEY });
  const attached = await attachRunTask(api, workspace.id, task.id, {
    'enforcement-level': options.enforcement ?? 'mandatory',
    stages: options.stages ?? ['post_plan'],
  });
  return { org, api, workspace, taskId: task.id, workspaceTaskId: attached.id };
}

export async function startRun(gated: GatedWorkspace, attributes: Record<string, unknown> = {}): Promise<string> {
  const run = await createRun(gated.api, gated.workspace.id, { message: 'gated run', ...attributes });
  return run.data.id as string;
}

/** Polls a stage until its status is one of `statuses`. */
export async function waitForStageStatus(api: ApiClient, stageId: string, statuses: string | string[], timeoutMs = 10_000): Promise<any> {
  const wanted = Array.isArray(statuses) ? statuses : [statuses];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = await api.get(`/task-stages/${stageId}?include=task_results`);
    assert.equal(shown.status, 200, shown.text);
    if (wanted.includes(shown.body.data.attributes.status)) return shown.body;
    if (Date.now() > deadline) assert.fail(`stage ${stageId} is ${shown.body.data.attributes.status}, expected ${wanted.join(' or ')}`);
    await sleep(25);
  }
}

/** The run's stages, in run order. */
export async function stagesOf(api: ApiClient, runId: string): Promise<any[]> {
  const listed = await api.get(`/runs/${runId}/task-stages`);
  assert.equal(listed.status, 200, listed.text);
  return listed.body.data;
}
