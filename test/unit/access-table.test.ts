import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ACCESS_TABLE, PERSONAL_TABLE, type ActionOn, type Thing, type ThingFacts } from '../../src/access/access-table.js';
import { ORGANIZATION_ACCESS_KEYS, noAccess, type OrganizationAccessKey } from '../../src/access/organization-access.js';
import { outsider, standingFromTeams, type OrganizationStanding } from '../../src/access/organization-standing.js';
import { requireAccess, requirePersonalAccess, verdictFor } from '../../src/access/require-access.js';
import type { TeamFacts } from '../../src/access/team-permissions.js';
import { CUSTOM_DEFAULTS, FIXED_LEVELS, type WorkspaceGrant } from '../../src/access/workspace-access.js';
import { inWorkspace } from '../../src/access/workspace-gate.js';
import { inProject } from '../../src/access/project-gate.js';
import { FIXED_PROJECT_LEVELS, mergeProjectGrant, workspaceGrantOf, type ProjectGrant } from '../../src/access/project-access.js';
import type { OverrideStageFacts } from '../../src/shared/override-rule.js';
import { ApiError } from '../../src/core/errors.js';
import type { AnyPrincipal, Principal } from '../../src/core/principal.js';

/**
 * Every row of the access table, for every kind of caller: A allow, H hide (404), D deny (403 or the
 * owners team's 422). A change of who may do what shows up here as a changed letter.
 */
const ORG = 'acme';
const user = (id: string): Principal => ({ kind: 'user', tokenId: `at-${id}`, userId: id, username: id });
const teamToken = (teamId: string, actsAsPerson: boolean): Principal =>
  ({ kind: 'team', tokenId: `at-${teamId}`, organizationName: ORG, teamId, serviceAccountUserId: null, actsAsPerson });

function member(id: string, keys: OrganizationAccessKey[], options: { teamsEntitled?: boolean } = {}): OrganizationStanding {
  const access = noAccess();
  for (const key of keys) access[key] = true;
  return standingFromTeams(user(id), ORG, { activeMember: true, teams: [{ id: `team-${id}`, isOwners: false, access }], ...options });
}
const owners = { id: 'team-owners', isOwners: true, access: noAccess() };

/** The columns, in order. */
const CALLERS: Record<string, OrganizationStanding | undefined> = {
  admin: standingFromTeams({ kind: 'site-admin', tokenId: 'at-admin' }, ORG, { activeMember: false, teams: [] }),
  owner: standingFromTeams(user('owner'), ORG, { activeMember: true, teams: [owners] }),
  orgToken: standingFromTeams({ kind: 'organization', tokenId: 'at-org', organizationName: ORG }, ORG, { activeMember: false, teams: [] }),
  ownersToken: standingFromTeams(teamToken('team-owners', true), ORG, { activeMember: true, teams: [owners] }),
  mintedOwnersToken: standingFromTeams(teamToken('team-owners', false), ORG, { activeMember: true, teams: [owners] }),
  manageTeams: member('mt', ['manage-teams', 'manage-membership']),
  manageAccess: member('ma', ['manage-organization-access', 'manage-teams', 'manage-membership']),
  manageMembership: member('mm', ['manage-membership']),
  secretTeams: member('st', ['access-secret-teams', 'manage-teams', 'manage-membership']),
  manageRunTasks: member('mr', ['manage-run-tasks']),
  policyOverrides: member('po', ['manage-policy-overrides']),
  readWorkspaces: member('rw', ['read-workspaces']),
  manageWorkspaces: member('mw', ['manage-workspaces', 'read-workspaces']),
  plain: member('pm', []),
  withoutTeamsEdition: member('fe', ['manage-teams', 'manage-membership', 'manage-workspaces', 'read-workspaces'], { teamsEntitled: false }),
  ownerWithoutTeamsEdition: standingFromTeams(user('of'), ORG, { activeMember: true, teams: [owners], teamsEntitled: false }),
  otherOrgToken: standingFromTeams({ kind: 'organization', tokenId: 'at-other', organizationName: 'other' }, ORG, { activeMember: false, teams: [] }),
  outsider: outsider(user('out'), ORG),
  noOrganization: undefined,
};

const visibleTeam: TeamFacts = { id: 'team-visible', isOwners: false, visibility: 'organization', allowMemberTokenManagement: true };
const secretTeam: TeamFacts = { id: 'team-secret', isOwners: false, visibility: 'secret', allowMemberTokenManagement: true };
const ownersTeam: TeamFacts = { id: 'team-owners', isOwners: true, visibility: 'secret', allowMemberTokenManagement: true };

type Row = { [T in Thing]: [T, ActionOn<T>, ThingFacts[T], string, string] }[Thing];
const row = <T extends Thing>(thing: T, action: ActionOn<T>, facts: ThingFacts[T], label: string, expected: string): Row =>
  [thing, action, facts, label, expected] as unknown as Row;

// Columns, in groups: [admin owner orgToken ownersToken mintedOwnersToken] [manageTeams manageAccess manageMembership secretTeams]
// [manageRunTasks policyOverrides readWorkspaces manageWorkspaces] [plain withoutTeamsEdition ownerWithoutTeamsEdition]
// [otherOrgToken outsider noOrganization]
const ROWS: Row[] = [
  row('organization', 'read', { name: ORG }, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('organization', 'administer', { name: ORG }, '', 'AAAAA HHHH HHHH HHA HHH'),
  row('organization', 'invite-member', { name: ORG }, '', 'AAAAA AAAA HHHH HHA HHH'),
  row('organization', 'create-team', { name: ORG }, '', 'AAAAA AAHA HHHH HHH HHH'),
  row('organization', 'create-team-with-access', { name: ORG }, '', 'AAAAA HAHH HHHH HHH HHH'),
  row('organization', 'list-run-tasks', { name: ORG }, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('organization', 'create-run-task', { name: ORG }, '', 'AAAAA HHHH AHHH HHA HHH'),
  row('organization', 'create-workspace', { name: ORG }, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('organization', 'create-agent-pool', { name: ORG }, '', 'AAAAA DDDD DDDD DDA HHH'),
  row('membership', 'read', {}, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('membership', 'delete', { inOwnersTeam: false }, 'a member outside the owners team', 'AAAAA AAAA HHHH HHA HHH'),
  row('membership', 'delete', { inOwnersTeam: true }, 'a member of the owners team', 'AAAAA DDDD HHHH HHA HHH'),
  row('team', 'read', visibleTeam, 'a team visible to the organization', 'AAAAA AAAA AAAA AHA HHH'),
  row('team', 'update-settings', visibleTeam, 'a team visible to the organization', 'AAAAA AAHA HHHH HHA HHH'),
  row('team', 'update-access', visibleTeam, 'a team visible to the organization', 'AAAAA HAHH HHHH HHA HHH'),
  row('team', 'delete', visibleTeam, 'a team visible to the organization', 'AAAAA AAHA HHHH HHA HHH'),
  row('team', 'manage-members', visibleTeam, 'a team visible to the organization', 'AAAAA AAAA HHHH HHA HHH'),
  row('team', 'manage-tokens', visibleTeam, 'a team visible to the organization', 'AAAAA AAHA HHHH HHA HHH'),
  row('team', 'add-members', visibleTeam, 'a team visible to the organization', 'AAAAA AAAA HHHH HHD HHH'),
  row('team', 'create-token', visibleTeam, 'a team visible to the organization', 'AAAAA AAHA HHHH HHD HHH'),
  row('team-token', 'manage', visibleTeam, 'a team visible to the organization', 'AAAAA AAHA HHHH HHA HHH'),
  row('team', 'read', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'update-settings', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'update-access', secretTeam, 'a secret team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team', 'delete', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'manage-members', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'manage-tokens', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'add-members', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHD HHH'),
  row('team', 'create-token', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHD HHH'),
  row('team-token', 'manage', secretTeam, 'a secret team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'read', ownersTeam, 'the owners team', 'AAAAA HHHA HHHH HHA HHH'),
  row('team', 'update-settings', ownersTeam, 'the owners team', 'AAAAA HHHD HHHH HHA HHH'),
  row('team', 'update-access', ownersTeam, 'the owners team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team', 'delete', ownersTeam, 'the owners team', 'DDDDD HHHD HHHH HHD HHH'),
  row('team', 'manage-members', ownersTeam, 'the owners team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team', 'manage-tokens', ownersTeam, 'the owners team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team', 'add-members', ownersTeam, 'the owners team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team', 'create-token', ownersTeam, 'the owners team', 'AADAD HHHH HHHH HHA HHH'),
  row('team-token', 'manage', ownersTeam, 'the owners team', 'AAAAA HHHH HHHH HHA HHH'),
  row('workspace', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  row('workspace', 'manage', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('workspace', 'lock', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('workspace', 'force-unlock', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('workspace', 'queue-run', {}, '', 'AADAD HHHH DDDA HHA HHH'),
  row('workspace', 'attach-run-task', {}, '', 'AAAAA HHHH ADDD HHA HHH'),
  row('workspace', 'upload-configuration', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('workspace', 'manage-team-access', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('configuration-version', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  // HCP's archive: whoever may upload configurations.
  row('configuration-version', 'archive', {}, '', 'AAAAA HHHH DDDA HHA HHH'),
  row('run-task', 'read', {}, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('run-task', 'manage', {}, '', 'AAAAA DDDD ADDD DDA HHH'),
  row('run', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  row('run', 'act', { action: 'apply' }, '', 'AADAD HHHH DDDA HHA HHH'),
  row('run', 'comment', {}, '', 'AADAD HHHH DDDA HHA HHH'),
  row('plan', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  // The agent protocol: queue-run's callers, and a 404 (never a 403) for everyone else, readers included.
  row('plan', 'execute', {}, '', 'AAHAH HHHH HHHA HHA HHH'),
  row('apply', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  row('apply', 'execute', {}, '', 'AAHAH HHHH HHHA HHA HHH'),
  row('task-stage', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  row('task-stage', 'override', {}, '', 'AADAD HHHH ADDD HHA HHH'),
  row('task-result', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  // Policies (issue 29): members read them; owners and manage-policies write them (403 for other members), where
  // the edition has policies; their results are read with the run they judged.
  row('policy', 'read', { policiesEntitled: true }, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('policy', 'manage', { policiesEntitled: true }, 'an edition with policies', 'AAAAA DDDD DDDD DDA HHH'),
  row('policy', 'manage', { policiesEntitled: false }, 'an edition without policies', 'DDDDD DDDD DDDD DDD HHH'),
  row('policy-set', 'read', { policiesEntitled: true }, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('policy-set', 'manage', { policiesEntitled: true }, 'an edition with policies', 'AAAAA DDDD DDDD DDA HHH'),
  row('policy-set', 'manage', { policiesEntitled: false }, 'an edition without policies', 'DDDDD DDDD DDDD DDD HHH'),
  row('policy-evaluation', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  row('policy-set-outcome', 'read', {}, '', 'AAAAA HHHH AAAA HHA HHH'),
  // Agent pools (issue 36): members see them; owners and manage-agent-pools change them and their tokens.
  row('agent-pool', 'read', {}, '', 'AAAAA AAAA AAAA AAA HHH'),
  row('agent-pool', 'manage', {}, '', 'AAAAA DDDD DDDD DDA HHH'),
  // Team access (issue 36): whoever reads the workspace sees the access of the teams it can see; its admins change it.
  row('team-workspace', 'read', { team: visibleTeam }, 'a team visible to the organization', 'AAAAA HHHH AAAA HHA HHH'),
  row('team-workspace', 'read', { team: secretTeam }, 'a secret team', 'AAAAA HHHH HHHH HHA HHH'),
  row('team-workspace', 'manage', { team: visibleTeam }, 'a team visible to the organization', 'AAAAA HHHH DDDA HHA HHH'),
  // Projects (issue 36): owners and manage-projects make them (403 for other members); without access to one
  // (none of these columns holds any, nor manage-/read-projects) it is hidden, except that manage-workspaces
  // creates and moves workspaces in any (the project rows with team access are in the describe below).
  row('organization', 'create-project', { name: ORG }, '', 'AAAAA DDDD DDDD DDA HHH'),
  row('project', 'read', {}, '', 'AAAAA HHHH HHHH HHA HHH'),
  row('project', 'update', {}, '', 'AAAAA HHHH HHHH HHA HHH'),
  row('project', 'delete', {}, '', 'AAAAA HHHH HHHH HHA HHH'),
  row('project', 'manage-team-access', {}, '', 'AAAAA HHHH HHHH HHA HHH'),
  row('project', 'create-workspace', {}, '', 'AAAAA HHHH HHHA HHA HHH'),
  row('project', 'move-workspace', {}, '', 'AAAAA HHHH HHHA HHA HHH'),
  row('team-project', 'read', { team: visibleTeam }, 'a team visible to the organization', 'AAAAA HHHH HHHH HHA HHH'),
  row('team-project', 'manage', { team: visibleTeam }, 'a team visible to the organization', 'AAAAA HHHH HHHH HHA HHH'),
];

function letter(standing: OrganizationStanding | undefined, [thing, action, facts]: Row): string {
  return { allow: 'A', hide: 'H', deny: 'D' }[verdictFor(standing, thing, action as never, facts as never).kind];
}

describe('the access table', () => {
  it('has a tested answer for every row', () => {
    const tested = new Set(ROWS.map(([thing, action]) => `${thing} ${action}`));
    for (const [thing, actions] of Object.entries(ACCESS_TABLE)) {
      for (const action of Object.keys(actions)) assert.ok(tested.has(`${thing} ${action}`), `${thing} ${action} is not tested`);
    }
  });

  for (const entry of ROWS) {
    const [thing, action, , label, expected] = entry;
    it(`${thing} ${action}${label ? ` (${label})` : ''}`, () => {
      const actual = Object.values(CALLERS).map((standing) => letter(standing, entry)).join('');
      assert.equal(actual, expected.replace(/ /g, ''), `columns: ${Object.keys(CALLERS).join(' ')}`);
    });
  }

  it('hides everything from a caller outside the organization, whatever its rights', () => {
    fc.assert(
      fc.property(fc.subarray([...ORGANIZATION_ACCESS_KEYS]), fc.boolean(), fc.integer({ min: 0, max: ROWS.length - 1 }), (keys, isOwners, index) => {
        const access = noAccess();
        for (const key of keys) access[key] = true;
        const standing = standingFromTeams(user('gone'), ORG, { activeMember: false, teams: [{ id: 'team-x', isOwners, access }] });
        assert.equal(letter(standing, ROWS[index]!), 'H');
      }),
    );
  });

  it('requireAccess throws the thing\'s own "not found" when hidden and the row\'s refusal when denied', () => {
    assert.throws(() => requireAccess(CALLERS.outsider, 'organization', 'read', { name: ORG }), (error: ApiError) =>
      error.status === 404 && error.message === "organization 'acme' not found");
    assert.throws(() => requireAccess(CALLERS.plain, 'team', 'read', secretTeam), (error: ApiError) => error.status === 404 && error.message === 'team not found');
    assert.throws(() => requireAccess(CALLERS.readWorkspaces, 'workspace', 'manage', {}), (error: ApiError) =>
      error.status === 403 && error.message === 'managing workspaces needs the manage-workspaces permission');
    assert.throws(() => requireAccess(CALLERS.secretTeams, 'team', 'delete', ownersTeam), (error: ApiError) =>
      error.status === 422 && error.message === 'the owners team cannot be deleted');
    assert.throws(() => requireAccess(CALLERS.orgToken, 'run', 'act', { action: 'apply' }), (error: ApiError) =>
      error.status === 403 && error.message === 'the organization token, and the tokens it minted, cannot act on runs');
    assert.throws(() => requireAccess(CALLERS.readWorkspaces, 'run', 'act', { action: 'discard' }), (error: ApiError) =>
      error.status === 403 && error.message === 'only people who may queue runs can discard them');
    assert.throws(() => requireAccess(CALLERS.ownerWithoutTeamsEdition, 'team', 'add-members', visibleTeam), (error: ApiError) =>
      error.status === 403 && error.message === "the organization's edition does not include teams other than owners");
    assert.throws(() => requireAccess(CALLERS.ownerWithoutTeamsEdition, 'team', 'create-token', secretTeam), (error: ApiError) =>
      error.status === 403 && error.message === "the organization's edition does not include teams other than owners");
    assert.throws(() => requireAccess(CALLERS.mintedOwnersToken, 'team', 'create-token', ownersTeam), (error: ApiError) =>
      error.status === 403 && error.message === 'the organization token, and the tokens it minted, cannot create tokens for the owners team');
    requireAccess(CALLERS.owner, 'team', 'delete', visibleTeam);
  });

  it('things outside organizations: decided by who the caller is', () => {
    const admin: Principal = { kind: 'site-admin', tokenId: 'at-admin' };
    const alice = user('alice');
    const orgToken: Principal = { kind: 'organization', tokenId: 'at-org', organizationName: ORG };
    const token = teamToken('team-x', true);
    const auditTrailToken: AnyPrincipal = { kind: 'audit-trail', tokenId: 'at-audit', organizationName: ORG };
    const expected: Record<keyof typeof PERSONAL_TABLE, [AnyPrincipal, string, boolean][]> = {
      'create-organization': [[admin, '', true], [alice, '', true], [orgToken, '', false], [token, '', false]],
      'create-organization-site-admin-only': [[admin, '', true], [orgToken, '', false], [token, '', false]],
      'administer-site': [[admin, '', true], [alice, '', false], [orgToken, '', false], [token, '', false]],
      'manage-user-tokens': [[admin, 'bob', true], [alice, 'alice', true], [alice, 'bob', false], [orgToken, 'alice', false], [token, 'alice', false]],
      'manage-user-token': [[admin, 'bob', true], [alice, 'alice', true], [alice, 'bob', false], [orgToken, 'alice', false], [token, 'alice', false]],
      // Only a person has an account to change (PATCH /account/update).
      'update-own-account': [[alice, '', true], [admin, '', false], [orgToken, '', false], [token, '', false], [auditTrailToken, '', false]],
      'accept-invitation': [[admin, 'bob', false], [alice, 'alice', true], [alice, 'bob', false], [token, 'alice', false], [auditTrailToken, 'alice', false]],
      // Only the audit trail token reads the audit trail; the organization token and owners' tokens find nothing (404).
      'read-audit-trail': [[auditTrailToken, '', true], [admin, '', false], [alice, '', false], [orgToken, '', false], [token, '', false]],
    };
    // Where only the site admin creates organizations, a user sees the endpoint and is refused: 403, not 404.
    assert.throws(() => requirePersonalAccess(alice, 'create-organization-site-admin-only'), (error: ApiError) =>
      error.status === 403 && /only the site admin creates organizations/.test(error.message));
    for (const [action, cases] of Object.entries(expected) as [keyof typeof PERSONAL_TABLE, [AnyPrincipal, string, boolean][]][]) {
      for (const [principal, userId, allowed] of cases) {
        const run = () => requirePersonalAccess(principal, action, userId);
        if (allowed) run();
        else assert.throws(run, (error: ApiError) => error.status === 404, `${action} ${principal.kind} ${userId}`);
      }
    }
  });
});

/**
 * The workspace column (issue 36): the same rows for members whose only standing in a workspace is their
 * team's access to it (access/workspace-access.ts), HCP's fixed levels and custom keys.
 */
describe('the access table with team access to the workspace', () => {
  const WS = 'ws-1';
  const fixed = (level: 'read' | 'plan' | 'write' | 'admin'): WorkspaceGrant => ({ access: level, ...FIXED_LEVELS[level] });
  const custom = (keys: Partial<WorkspaceGrant>): WorkspaceGrant => ({ access: 'custom', ...CUSTOM_DEFAULTS, ...keys });
  const granted = (id: string, grants: WorkspaceGrant[], keys: OrganizationAccessKey[] = []) => inWorkspace(member(id, keys), WS, grants);
  const mintedWrite = inWorkspace(
    standingFromTeams(teamToken('team-w', false), ORG, { activeMember: true, teams: [{ id: 'team-w', isOwners: false, access: noAccess() }] }),
    WS,
    [fixed('write')],
  );
  /** The columns, in order. */
  const GRANTED: Record<string, OrganizationStanding> = {
    read: granted('r', [fixed('read')]),
    plan: granted('p', [fixed('plan')]),
    write: granted('w', [fixed('write')]),
    admin: granted('a', [fixed('admin')]),
    customRunTasks: granted('crt', [custom({ 'run-tasks': true })]),
    customPolicyOverrides: granted('cpo', [custom({ 'policy-overrides': true })]),
    customApply: granted('cap', [custom({ runs: 'apply' })]),
    mintedTokenWithWrite: mintedWrite,
    noAccessToThisWorkspace: granted('none', []),
    readRightAndAdmin: granted('ra', [fixed('read'), fixed('admin')], ['read-workspaces']),
  };
  const policyHeld: OverrideStageFacts = {
    status: 'awaiting_override', results: [], policyHolds: ['override'], workspaceRequiredApprovals: 1, overriders: [], runAuthor: null, preventSelfApproval: true,
  };
  // Columns: [read plan write admin] [customRunTasks customPolicyOverrides customApply] [mintedTokenWithWrite] [none] [readRightAndAdmin]
  const GRANT_ROWS: Row[] = [
    row('workspace', 'read', {}, '', 'AAAA AAA A H A'),
    row('workspace', 'manage', {}, '', 'DDDA DDD D H A'),
    row('workspace', 'upload-configuration', {}, '', 'DAAA DDA D H A'),
    row('workspace', 'queue-run', {}, '', 'DAAA DDA D H A'),
    row('workspace', 'attach-run-task', {}, '', 'DDDA ADD D H A'),
    row('workspace', 'manage-team-access', {}, '', 'DDDA DDD D H A'),
    // HCP's lock (`workspace-locking`: write, admin, or the custom key) and force-unlock (the workspace's admins).
    row('workspace', 'lock', {}, '', 'DDAA DDD A H A'),
    row('workspace', 'force-unlock', {}, '', 'DDDA DDD D H A'),
    row('configuration-version', 'read', {}, '', 'AAAA AAA A H A'),
    row('configuration-version', 'archive', {}, '', 'DAAA DDA D H A'),
    row('run', 'read', {}, '', 'AAAA AAA A H A'),
    row('run', 'act', { action: 'apply' }, '', 'DDAA DDA D H A'),
    row('run', 'comment', {}, '', 'DAAA DDA D H A'),
    row('plan', 'read', {}, '', 'AAAA AAA A H A'),
    row('plan', 'execute', {}, '', 'HAAA HHA H H A'),
    row('apply', 'read', {}, '', 'AAAA AAA A H A'),
    row('apply', 'execute', {}, '', 'HHAA HHA H H A'),
    row('task-stage', 'read', {}, '', 'AAAA AAA A H A'),
    row('task-stage', 'override', {}, 'a stage held by run tasks', 'DDDA ADD D H A'),
    row('task-stage', 'override', { stage: policyHeld }, 'a stage held by policies', 'DDDA DAD D H A'),
    row('task-result', 'read', {}, '', 'AAAA AAA A H A'),
    row('policy-evaluation', 'read', {}, '', 'AAAA AAA A H A'),
    row('policy-set-outcome', 'read', {}, '', 'AAAA AAA A H A'),
    row('team-workspace', 'read', { team: visibleTeam }, '', 'AAAA AAA A H A'),
    row('team-workspace', 'manage', { team: visibleTeam }, '', 'DDDA DDD D H A'),
  ];

  it('covers every action on a workspace and what is read through it', () => {
    const workspaceThings = new Set(GRANT_ROWS.map(([thing]) => thing));
    const tested = new Set(GRANT_ROWS.map(([thing, action]) => `${thing} ${action}`));
    for (const thing of workspaceThings) {
      for (const action of Object.keys(ACCESS_TABLE[thing])) assert.ok(tested.has(`${thing} ${action}`), `${thing} ${action} is not tested with team access`);
    }
  });

  for (const entry of GRANT_ROWS) {
    const [thing, action, , label, expected] = entry;
    it(`${thing} ${action}${label ? ` (${label})` : ''}`, () => {
      const actual = Object.values(GRANTED).map((standing) => letter(standing, entry)).join('');
      assert.equal(actual, expected.replace(/ /g, ''), `columns: ${Object.keys(GRANTED).join(' ')}`);
    });
  }

  it('a grant on another workspace grants nothing here, and several teams hold the most any of them grants', () => {
    const elsewhere = inWorkspace(member('x', []), 'ws-2', []);
    assert.equal(verdictFor(elsewhere, 'workspace', 'read', {}).kind, 'hide');
    const both = granted('both', [fixed('plan'), custom({ 'run-tasks': true })]);
    assert.equal(verdictFor(both, 'workspace', 'queue-run', {}).kind, 'allow');
    assert.equal(verdictFor(both, 'workspace', 'attach-run-task', {}).kind, 'allow');
    assert.equal(verdictFor(both, 'run', 'act', { action: 'apply' }).kind, 'deny');
  });

  it('refuses with why: a planner may not apply, the minted token is no person', () => {
    assert.throws(() => requireAccess(GRANTED.plan, 'run', 'act', { action: 'apply' }), (error: ApiError) =>
      error.status === 403 && error.message === 'to apply runs, your team access to the workspace needs runs: apply');
    assert.throws(() => requireAccess(GRANTED.read, 'run', 'act', { action: 'discard' }), (error: ApiError) =>
      error.status === 403 && error.message === 'only people who may queue runs can discard them');
    assert.throws(() => requireAccess(GRANTED.mintedTokenWithWrite, 'workspace', 'queue-run', {}), (error: ApiError) =>
      error.status === 403 && error.message === 'the organization token, and the tokens it minted, cannot create runs');
  });
});

describe('the access table with team access to a project (issue 36)', () => {
  const level = (access: Exclude<ProjectGrant['access'], 'custom'>): ProjectGrant => ({ access, ...FIXED_PROJECT_LEVELS[access] });
  const custom = (input: Record<string, unknown>) => mergeProjectGrant(undefined, { access: 'custom', ...input }).grant!;
  const callers: Record<string, OrganizationStanding> = {
    readProjects: member('rp', ['read-projects', 'read-workspaces']),
    manageProjects: member('mp', ['manage-projects', 'manage-workspaces', 'read-projects', 'read-workspaces']),
    read: inProject(member('r', []), 'prj-1', [level('read')]),
    write: inProject(member('w', []), 'prj-1', [level('write')]),
    maintain: inProject(member('m', []), 'prj-1', [level('maintain')]),
    admin: inProject(member('a', []), 'prj-1', [level('admin')]),
    settingsUpdate: inProject(member('su', []), 'prj-1', [custom({ 'project-access': { settings: 'update' } })]),
    createAndMove: inProject(member('cm', []), 'prj-1', [custom({ 'workspace-access': { create: true, move: true } })]),
    readAndAdmin: inProject(member('ra', []), 'prj-1', [level('read'), level('admin')]),
    none: inProject(member('n', []), 'prj-1', []),
  };
  const actions = ['read', 'update', 'delete', 'manage-team-access', 'create-workspace', 'move-workspace'] as const;
  it('gives each level and custom key its actions: the highest of several grants wins; 404 without access', () => {
    const actual = Object.fromEntries(Object.entries(callers).map(([name, standing]) =>
      [name, actions.map((action) => ({ allow: 'A', hide: 'H', deny: 'D' })[verdictFor(standing, 'project', action, {}).kind]).join('')]));
    assert.deepEqual(actual, {
      readProjects: 'ADDDDD',
      manageProjects: 'AAAAAA',
      read: 'ADDDDD',
      write: 'ADDDDD',
      maintain: 'ADDDAD',
      admin: 'AAAAAA',
      settingsUpdate: 'AADDDD',
      createAndMove: 'ADDDAA',
      readAndAdmin: 'AAAAAA',
      none: 'HHHHHH',
    });
  });

  it("a project grant's workspace part is the workspace level HCP names (maintain and admin: workspace admin)", () => {
    const on = (grant: ProjectGrant) => inWorkspace(member('x', []), 'ws-1', [workspaceGrantOf(grant)]);
    const letters = (standing: OrganizationStanding) =>
      (['read', 'queue-run', 'manage', 'attach-run-task'] as const).map((action) => ({ allow: 'A', hide: 'H', deny: 'D' })[verdictFor(standing, 'workspace', action, {}).kind]).join('');
    assert.deepEqual(
      Object.fromEntries((['read', 'write', 'maintain', 'admin'] as const).map((name) => [name, letters(on(level(name)))])),
      { read: 'ADDD', write: 'AADD', maintain: 'AAAA', admin: 'AAAA' },
    );
    assert.equal(letters(on(custom({ 'workspace-access': { runs: 'plan', 'run-tasks': true } }))), 'AADA');
  });
});
