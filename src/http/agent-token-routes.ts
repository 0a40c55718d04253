/**
 * The routes an agent token authenticates on (issue 36): what `teamstage pipeline` (examples/pipeline/gate.sh)
 * and the agent protocol (docs/agent-protocol.md) ask, and nothing else. Everywhere else an agent token is a 401.
 * On these routes it is held, like any caller, to the access table: it reads and drives the runs of the
 * workspaces that name its pool (access/workspace-gate.ts) and finds nothing else (404).
 */
const ROUTES = new Set([
  // Find the workspace, upload its configuration, queue and follow the run.
  'GET /api/v2/organizations/:organization_name/workspaces/:workspace_name',
  'GET /api/v2/workspaces/:workspace_id',
  'POST /api/v2/workspaces/:workspace_id/configuration-versions',
  'POST /api/v2/runs',
  'GET /api/v2/runs/:run_id',
  'POST /api/v2/runs/:run_id/actions/apply',
  'POST /api/v2/runs/:run_id/actions/discard',
  'POST /api/v2/runs/:run_id/actions/cancel',
  // The stages that hold it, and why.
  'GET /api/v2/task-stages/:task_stage_id',
  'GET /api/v2/task-results/:task_result_id/outcomes',
  'GET /api/v2/policy-evaluations/:policy_evaluation_id/policy-set-outcomes',
  // The agent protocol: the plan's and the apply's claim, uploads and report.
  'GET /api/v2/plans/:plan_id',
  'GET /api/v2/applies/:apply_id',
  'POST /api/v2/plans/:plan_id/actions/claim',
  'POST /api/v2/applies/:apply_id/actions/claim',
  'PUT /api/v2/plans/:plan_id/json-output',
  'PUT /api/v2/plans/:plan_id/log',
  'PUT /api/v2/applies/:apply_id/log',
  'POST /api/v2/plans/:plan_id/actions/report',
  'POST /api/v2/applies/:apply_id/actions/report',
]);

export function takesAgentToken(method: string, routeUrl: string | undefined): boolean {
  return routeUrl !== undefined && ROUTES.has(`${method} ${routeUrl}`);
}

/** For the test that every listed route exists. */
export const AGENT_TOKEN_ROUTES: ReadonlySet<string> = ROUTES;
