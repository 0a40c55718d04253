/**
 * The JSON body every run task request carries (HCP's payload_version 1). Result
 * delivery builds one per result; the verification request on task create is the same shape with
 * placeholder identifiers and the access token `test-token`.
 */
export interface TaskRequestPayload {
  payload_version: 1;
  stage: string;
  access_token: string;
  capabilities: { outcomes: true };
  configuration_version_download_url: string | null;
  configuration_version_id: string | null;
  is_speculative: boolean;
  organization_name: string;
  /** From `post_plan` on (and in the verification request). */
  plan_json_api_url?: string;
  run_app_url: string;
  run_created_at: string;
  run_created_by: string;
  run_id: string;
  run_message: string;
  task_result_callback_url: string;
  task_result_enforcement_level: string;
  task_result_id: string;
  vcs_branch: null;
  vcs_commit_url: null;
  vcs_pull_request_url: null;
  vcs_repo_url: null;
  workspace_app_url: string;
  workspace_id: string;
  workspace_name: string;
  workspace_working_directory: string;
}

/** Absolute links the payload points at, all under the configured base URL. */
export const taskLinks = {
  configurationDownload: (baseUrl: string, cvId: string) => `${baseUrl}/api/v2/configuration-versions/${cvId}/download`,
  planJson: (baseUrl: string, planId: string) => `${baseUrl}/api/v2/plans/${planId}/json-output`,
  callback: (baseUrl: string, resultId: string) => `${baseUrl}/api/v2/task-results/${resultId}/callback`,
  /** The console's run page at HCP Terraform's path (src/web/router/console-paths.ts names the same). */
  runApp: (baseUrl: string, organization: string, workspace: string, runId: string) =>
    `${baseUrl}/app/${organization}/workspaces/${workspace}/runs/${runId}`,
  workspaceApp: (baseUrl: string, organization: string, workspace: string) => `${baseUrl}/app/${organization}/workspaces/${workspace}`,
};

export const VERIFICATION_ACCESS_TOKEN = 'test-token';

/**
 * The verification request's body: the task is told it is a test (`stage` `test`, zero identifiers, as
 * HCP Terraform sends) and must answer 200.
 */
export function verificationPayload(baseUrl: string, organizationName: string, now: string): TaskRequestPayload {
  const ids = { run: 'run-0000000000000000', cv: 'cv-0000000000000000', plan: 'plan-0000000000000000', result: 'taskrs-0000000000000000', ws: 'ws-0000000000000000' };
  const workspaceName = 'test-workspace';
  return {
    payload_version: 1,
    stage: 'test',
    access_token: VERIFICATION_ACCESS_TOKEN,
    capabilities: { outcomes: true },
    configuration_version_download_url: taskLinks.configurationDownload(baseUrl, ids.cv),
    configuration_version_id: ids.cv,
    is_speculative: false,
    organization_name: organizationName,
    plan_json_api_url: taskLinks.planJson(baseUrl, ids.plan),
    run_app_url: taskLinks.runApp(baseUrl, organizationName, workspaceName, ids.run),
    run_created_at: now,
    run_created_by: 'test-user',
    run_id: ids.run,
    run_message: 'Test run',
    task_result_callback_url: taskLinks.callback(baseUrl, ids.result),
    task_result_enforcement_level: 'test',
    task_result_id: ids.result,
    vcs_branch: null,
    vcs_commit_url: null,
    vcs_pull_request_url: null,
    vcs_repo_url: null,
    workspace_app_url: taskLinks.workspaceApp(baseUrl, organizationName, workspaceName),
    workspace_id: ids.ws,
    workspace_name: workspaceName,
    workspace_working_directory: '',
  };
}
