import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeliveryContext } from '../../src/delivery/delivery-context.js';
import { buildTaskPayload } from '../../src/delivery/task-payload.js';

const BASE = 'https://teamstage.example';

function context(overrides: Partial<DeliveryContext> = {}): DeliveryContext {
  return {
    resultId: 'taskrs-AAAAAAAAAAAAAAAA',
    resultStatus: 'pending',
    resultUpdatedAt: '2026-01-01T00:00:00.000Z',
    stageId: 'ts-AAAAAAAAAAAAAAAA',
    stage: 'post_plan',
    stageStatus: 'running',
    enforcementLevel: 'mandatory',
    isSpeculative: false,
    taskUrl: 'http://127.0.0.1:9/',
    hmacKey: 'secret',
    runId: 'run-AAAAAAAAAAAAAAAA',
    runMessage: 'Triggered via API',
    runCreatedAt: '2026-01-01T00:00:00.000Z',
    runCreatedBy: 'alice',
    configurationVersionId: 'cv-AAAAAAAAAAAAAAAA',
    planId: 'plan-AAAAAAAAAAAAAAAA',
    workspaceId: 'ws-AAAAAAAAAAAAAAAA',
    workspaceName: 'payments',
    workspaceWorkingDirectory: '',
    organizationName: 'acme',
    ...overrides,
  };
}

const EXPECTED_KEYS = [
  'payload_version', 'stage', 'access_token', 'capabilities', 'configuration_version_download_url', 'configuration_version_id',
  'is_speculative', 'organization_name', 'plan_json_api_url', 'run_app_url', 'run_created_at', 'run_created_by', 'run_id',
  'run_message', 'task_result_callback_url', 'task_result_enforcement_level', 'task_result_id', 'vcs_branch', 'vcs_commit_url',
  'vcs_pull_request_url', 'vcs_repo_url', 'workspace_app_url', 'workspace_id', 'workspace_name', 'workspace_working_directory',
];

describe('run task request payload', () => {
  it('has every field with absolute URLs under the base URL', () => {
    const payload = buildTaskPayload(context(), 'token-123', BASE);
    assert.deepEqual(Object.keys(payload), EXPECTED_KEYS);
    assert.deepEqual(payload, {
      payload_version: 1,
      stage: 'post_plan',
      access_token: 'token-123',
      capabilities: { outcomes: true },
      configuration_version_download_url: `${BASE}/api/v2/configuration-versions/cv-AAAAAAAAAAAAAAAA/download`,
      configuration_version_id: 'cv-AAAAAAAAAAAAAAAA',
      is_speculative: false,
      organization_name: 'acme',
      plan_json_api_url: `${BASE}/api/v2/plans/plan-AAAAAAAAAAAAAAAA/json-output`,
      run_app_url: `${BASE}/app/acme/workspaces/payments/runs/run-AAAAAAAAAAAAAAAA`,
      run_created_at: '2026-01-01T00:00:00.000Z',
      run_created_by: 'alice',
      run_id: 'run-AAAAAAAAAAAAAAAA',
      run_message: 'Triggered via API',
      task_result_callback_url: `${BASE}/api/v2/task-results/taskrs-AAAAAAAAAAAAAAAA/callback`,
      task_result_enforcement_level: 'mandatory',
      task_result_id: 'taskrs-AAAAAAAAAAAAAAAA',
      vcs_branch: null,
      vcs_commit_url: null,
      vcs_pull_request_url: null,
      vcs_repo_url: null,
      workspace_app_url: `${BASE}/app/acme/workspaces/payments`,
      workspace_id: 'ws-AAAAAAAAAAAAAAAA',
      workspace_name: 'payments',
      workspace_working_directory: '',
    });
  });

  it('offers the plan JSON from post_plan on, never at pre_plan', () => {
    assert.equal('plan_json_api_url' in buildTaskPayload(context({ stage: 'pre_plan' }), 't', BASE), false);
    for (const stage of ['post_plan', 'pre_apply', 'post_apply']) {
      assert.match(String(buildTaskPayload(context({ stage }), 't', BASE).plan_json_api_url), /\/json-output$/, stage);
    }
  });

  it('passes speculative runs and runs without a configuration version through', () => {
    const payload = buildTaskPayload(context({ isSpeculative: true, configurationVersionId: null }), 't', BASE);
    assert.equal(payload.is_speculative, true);
    assert.equal(payload.configuration_version_download_url, null);
    assert.equal(payload.configuration_version_id, null);
  });
});
