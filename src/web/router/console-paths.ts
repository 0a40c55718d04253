import { link } from './history-router';

/**
 * Every page's path, in one place, as HCP Terraform names them where it has the page
 * (`/<org>/workspaces/<workspace>/runs/<run>`, the form the server sends as `run_app_url`).
 * Values are URI-encoded by `link`.
 */
export const paths = {
  account: () => '/',
  teams: (org: string) => link`/${org}/teams`,
  team: (org: string, teamId: string) => link`/${org}/teams/${teamId}`,
  workspaces: (org: string) => link`/${org}/workspaces`,
  workspace: (org: string, workspace: string) => link`/${org}/workspaces/${workspace}`,
  run: (org: string, workspace: string, runId: string) => link`/${org}/workspaces/${workspace}/runs/${runId}`,
  projects: (org: string) => link`/${org}/projects`,
  project: (org: string, projectId: string) => link`/${org}/projects/${projectId}`,
  tasks: (org: string) => link`/${org}/tasks`,
  people: (org: string) => link`/${org}/people`,
  /** An invitation to an organization, the link its owner sends (accepted by the invited user). */
  invitation: (membershipId: string) => link`/invitations/${membershipId}`,
  /** Pages found by id alone (old links): each shows its full path once it has read the thing. */
  runById: (runId: string) => link`/~/runs/${runId}`,
  teamById: (teamId: string) => link`/~/teams/${teamId}`,
  workspaceById: (workspaceId: string) => link`/~/workspaces/${workspaceId}`,
};
