import { HttpClient, bootstrapOrganization } from './http-client.js';
import type { MockTaskService, RecordedTaskRequest } from './mock-task-service.js';
import { tarGz } from './run-fixtures.js';

export const GATED_HMAC_KEY = 'gated-runs-hmac-key';

/**
 * Runs gated by one mandatory post-plan run task, made over real HTTP against any node of a cluster (the
 * rolling-upgrade and stop tests). Every answer's status is kept, so a test can assert that no request
 * answered 5xx, whichever node served it.
 */
export class GatedRuns {
  readonly answers: Array<{ node: string; method: string; path: string; status: number; text: string }> = [];

  private constructor(
    readonly organization: string,
    private readonly token: string,
    private readonly taskId: string,
  ) {}

  static async setUp(client: HttpClient, siteToken: string, serviceUrl: string): Promise<GatedRuns> {
    const name = `gated${Math.random().toString(36).slice(2, 8)}`;
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, name);
    const task = await client.request('POST', `/organizations/${organization}/tasks`, ownerToken, {
      data: { type: 'tasks', attributes: { name: 'gate', url: serviceUrl, category: 'task', 'hmac-key': GATED_HMAC_KEY } },
    });
    if (task.status !== 201) throw new Error(`create task: ${task.status} ${task.text}`);
    return new GatedRuns(organization, ownerToken, task.body.data.id);
  }

  async call(client: HttpClient, method: string, path: string, body?: unknown): Promise<any> {
    const response = await client.request(method, path, this.token, body);
    this.answers.push({ node: client.baseUrl, method, path, status: response.status, text: response.text.slice(0, 300) });
    if (response.status >= 300) throw new Error(`${method} ${path} on ${client.baseUrl}: ${response.status} ${response.text.slice(0, 300)}`);
    return response.body;
  }

  /** A workspace with an uploaded configuration and the mandatory post-plan task, and a run on it: the run's id. */
  async createRun(client: HttpClient, workspaceName: string): Promise<string> {
    const workspace = await this.call(client, 'POST', `/organizations/${this.organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: workspaceName } } });
    const version = await this.call(client, 'POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
    });
    const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
    this.answers.push({ node: client.baseUrl, method: 'PUT', path: 'upload-url', status: upload.status, text: await upload.text() });
    if (upload.status !== 200) throw new Error(`upload: ${upload.status}`);
    await this.call(client, 'POST', `/workspaces/${workspace.data.id}/tasks`, {
      data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory', stages: ['post_plan'] }, relationships: { task: { data: { type: 'tasks', id: this.taskId } } } },
    });
    const run = await this.call(client, 'POST', '/runs', {
      data: { type: 'runs', attributes: { message: workspaceName }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } },
    });
    return run.data.id as string;
  }

  /** The status of the run's post-plan stage (undefined before it exists). */
  async stageStatus(client: HttpClient, runId: string): Promise<string | undefined> {
    const stages = await this.call(client, 'GET', `/runs/${runId}/task-stages`);
    return stages.data.find((stage: any) => stage.attributes.stage === 'post_plan')?.attributes.status;
  }

  /** Waits (bounded, failing loudly) until the stage is `wanted`. */
  async waitForStage(client: HttpClient, runId: string, wanted: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let status: string | undefined;
    while ((status = await this.stageStatus(client, runId)) !== wanted) {
      if (Date.now() > deadline) throw new Error(`run ${runId}: post-plan stage ${status ?? 'not there'} after ${timeoutMs} ms, wanted ${wanted}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  serverErrors(): string[] {
    return this.answers.filter((answer) => answer.status >= 500).map((a) => `${a.method} ${a.path} on ${a.node}: ${a.status} ${a.text}`);
  }
}

/**
 * A task service's answer that passes: 200 at once, then `passed` by callback (to the callback URL the
 * delivering node gave, retried while that node is down).
 */
export function passAndCallBack(request: RecordedTaskRequest): { status: number } {
  const payload = request.json;
  if (!payload || payload.stage === 'test') return { status: 200 };
  void (async () => {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const response = await fetch(payload.task_result_callback_url, {
          method: 'PATCH',
          headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
          body: JSON.stringify({ data: { type: 'task-results', attributes: { status: 'passed', message: 'passed (gated-runs)' } } }),
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        if (response.status < 500) return;
      } catch {
        /* the node is down or busy: again */
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return { status: 200 };
}

export type { MockTaskService };
