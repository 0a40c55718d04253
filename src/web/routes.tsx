import type { FunctionComponent } from 'preact';
import { AccountPage } from './pages/account-page';
import { TeamsListPage } from './pages/teams-list-page';
import { TeamPage } from './pages/team-page';
import { RunPage } from './pages/run-page';
import { RunTasksPage } from './pages/run-tasks-page';
import { WorkspacePage } from './pages/workspace-page';
import { WorkspacesListPage } from './pages/workspaces-list-page';

/**
 * Every page of the console: a hash path pattern and the component that renders it (given the decoded
 * parameters). Add a page here with one line; `orgNav` adds a link per organization in the header.
 */
export interface Route {
  pattern: string;
  page: FunctionComponent<{ params: Record<string, string> }>;
}

export const ROUTES: Route[] = [
  { pattern: '/', page: AccountPage },
  { pattern: '/orgs/:org/teams', page: ({ params }) => <TeamsListPage organization={params.org!} /> },
  { pattern: '/teams/:id', page: ({ params }) => <TeamPage teamId={params.id!} /> },
  { pattern: '/orgs/:org/workspaces', page: ({ params }) => <WorkspacesListPage organization={params.org!} /> },
  { pattern: '/orgs/:org/tasks', page: ({ params }) => <RunTasksPage organization={params.org!} /> },
  { pattern: '/workspaces/:id', page: ({ params }) => <WorkspacePage workspaceId={params.id!} /> },
  { pattern: '/runs/:id', page: ({ params }) => <RunPage runId={params.id!} /> },
];

/** Per-organization navigation: label and path pattern (":org" is replaced by the organization's name). */
export const ORG_NAV: { label: string; pattern: string }[] = [
  { label: 'Teams', pattern: '/orgs/:org/teams' },
  { label: 'Workspaces', pattern: '/orgs/:org/workspaces' },
  { label: 'Run tasks', pattern: '/orgs/:org/tasks' },
];
