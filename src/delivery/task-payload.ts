import { stageHasPlan } from '../shared/stage-order.js';
import { taskLinks, type TaskRequestPayload } from '../runtasks/task-request-payload.js';
import type { DeliveryContext } from './delivery-context.js';

/**
 * The body of one result's request, in HCP Terraform's field order. Pure: every URL is
 * absolute under the configured base URL; `plan_json_api_url` is present from `post_plan` on.
 */
export function buildTaskPayload(context: DeliveryContext, accessToken: string, baseUrl: string): TaskRequestPayload {
  const org = encodeURIComponent(context.organizationName);
  const workspace = encodeURIComponent(context.workspaceName);
  const payload: TaskRequestPayload = {
    payload_version: 1,
    stage: context.stage,
    access_token: accessToken,
    capabilities: { outcomes: true },
    configuration_version_download_url: context.configurationVersionId
      ? taskLinks.configurationDownload(baseUrl, context.configurationVersionId)
      : null,
    configuration_version_id: context.configurationVersionId,
    is_speculative: context.isSpeculative,
    organization_name: context.organizationName,
    run_app_url: taskLinks.runApp(baseUrl, org, workspace, context.runId),
    run_created_at: context.runCreatedAt,
    run_created_by: context.runCreatedBy ?? '',
    run_id: context.runId,
    run_message: context.runMessage,
    task_result_callback_url: taskLinks.callback(baseUrl, context.resultId),
    task_result_enforcement_level: context.enforcementLevel,
    task_result_id: context.resultId,
    vcs_branch: null,
    vcs_commit_url: null,
    vcs_pull_request_url: null,
    vcs_repo_url: null,
    workspace_app_url: taskLinks.workspaceApp(baseUrl, org, workspace),
    workspace_id: context.workspaceId,
    workspace_name: context.workspaceName,
    workspace_working_directory: context.workspaceWorkingDirectory,
  };
  if (stageHasPlan(context.stage) && context.planId) {
    // Keep HCP's alphabetical order: plan_json_api_url sits between organization_name and run_app_url.
    const ordered: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(payload)) {
      ordered[key] = value;
      if (key === 'organization_name') ordered.plan_json_api_url = taskLinks.planJson(baseUrl, context.planId);
    }
    return ordered as unknown as TaskRequestPayload;
  }
  return payload;
}
