import type { FunctionComponent } from 'preact';
import { AccountPage } from './pages/account-page';
import { AuditTrailPage } from './pages/audit-trail-page';
import { InvitationPage } from './pages/invitation-page';
import { PeoplePage } from './pages/people-page';
import { PoliciesPage } from './pages/policies-page';
import { TeamsListPage } from './pages/teams-list-page';
import { TeamPage } from './pages/team-page';
import { RunPage } from './pages/run-page';
import { RunTasksPage } from './pages/run-tasks-page';
import { WorkspacePage } from './pages/workspace-page';
import { WorkspacesListPage } from './pages/workspaces-list-page';
import { ProjectPage } from './projects/project-page';
import { ProjectsListPage } from './projects/projects-list-page';

/**
 * Every page of the console: a path pattern (under /app) and the component that renders it (given the
 * decoded parameters), first match wins. Add a page here with one line; `ORG_NAV` adds a header link per
 * organization. `/~/…` are the pages an old hash link names by id alone (router/history-router.ts
 * `legacyHashPath`); each shows its full path once it has read the thing.
 */
export interface Route {
  pattern: string;
  page: FunctionComponent<{ params: Record<string, string> }>;
}

export const ROUTES: Route[] = [
  { pattern: '/', page: AccountPage },
  { pattern: '/~/runs/:id', page: ({ params }) => <RunPage runId={params.id!} /> },
  { pattern: '/~/teams/:id', page: ({ params }) => <TeamPage teamId={params.id!} /> },
  { pattern: '/~/workspaces/:id', page: ({ params }) => <WorkspacePage lookup={{ id: params.id! }} /> },
  { pattern: '/invitations/:id', page: ({ params }) => <InvitationPage membershipId={params.id!} /> },
  { pattern: '/:org/people', page: ({ params }) => <PeoplePage organization={params.org!} /> },
  { pattern: '/:org/policies', page: ({ params }) => <PoliciesPage organization={params.org!} /> },
  { pattern: '/:org/teams', page: ({ params }) => <TeamsListPage organization={params.org!} /> },
  { pattern: '/:org/teams/:id', page: ({ params }) => <TeamPage teamId={params.id!} /> },
  { pattern: '/:org/workspaces', page: ({ params }) => <WorkspacesListPage organization={params.org!} /> },
  { pattern: '/:org/workspaces/:name', page: ({ params }) => <WorkspacePage lookup={{ organization: params.org!, name: params.name! }} /> },
  { pattern: '/:org/workspaces/:ws/runs/:id', page: ({ params }) => <RunPage runId={params.id!} /> },
  { pattern: '/:org/projects', page: ({ params }) => <ProjectsListPage organization={params.org!} /> },
  { pattern: '/:org/projects/:id', page: ({ params }) => <ProjectPage organization={params.org!} projectId={params.id!} /> },
  { pattern: '/:org/tasks', page: ({ params }) => <RunTasksPage organization={params.org!} /> },
  { pattern: '/:org/audit-trail', page: ({ params }) => <AuditTrailPage organization={params.org!} /> },
  // The forms `run_app_url` and `workspace_app_url` had before they took HCP's: links already sent still open.
  { pattern: '/:org/:ws/runs/:id', page: ({ params }) => <RunPage runId={params.id!} /> },
  { pattern: '/:org/:ws', page: ({ params }) => <WorkspacePage lookup={{ organization: params.org!, name: params.ws! }} /> },
];

/**
 * Per-organization navigation: label and path pattern (":org" is replaced by the organization's name), and
 * the organization permission that offers the link, where only some may use the page.
 */
export const ORG_NAV: { label: string; pattern: string; permission?: string }[] = [
  { label: 'Teams', pattern: '/:org/teams' },
  { label: 'People', pattern: '/:org/people' },
  { label: 'Projects', pattern: '/:org/projects' },
  { label: 'Workspaces', pattern: '/:org/workspaces' },
  { label: 'Run tasks', pattern: '/:org/tasks' },
  { label: 'Policies', pattern: '/:org/policies' },
  { label: 'Audit trail', pattern: '/:org/audit-trail', permission: 'can-manage-auditing' },
];
