import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { standingFromTeams, type CallerTeam } from '../../src/access/organization-standing.js';
import { canSeeTeam, type TeamFacts } from '../../src/access/team-permissions.js';
import { canQueueRuns } from '../../src/access/workspace-permissions.js';
import { taskStagePermissions } from '../../src/access/task-stage-permissions.js';
import type { Principal } from '../../src/core/principal.js';
import { fullAccess, noAccess } from '../../src/access/organization-access.js';

const ORG = 'acme';
const user: Principal = { kind: 'user', tokenId: 'at-u', userId: 'user-1', username: 'alice' };
const siteAdmin: Principal = { kind: 'site-admin', tokenId: 'at-s' };
const teamToken = (actsAsPerson: boolean): Principal => ({
  kind: 'team', tokenId: 'at-t', organizationName: ORG, teamId: 'team-ops', serviceAccountUserId: null, actsAsPerson,
});

const managing = { ...noAccess(), 'manage-workspaces': true, 'read-workspaces': true, 'manage-run-tasks': true, 'manage-membership': true, 'access-secret-teams': true };
const ops: CallerTeam = { id: 'team-ops', isOwners: false, access: managing };
const owners: CallerTeam = { id: 'team-owners', isOwners: true, access: fullAccess() };
const hidden: TeamFacts = { id: 'team-other', isOwners: false, visibility: 'organization', allowMemberTokenManagement: true };

describe('organization standing: editions without teams', () => {
  it('teams other than owners grant nothing, and what they showed is hidden', () => {
    const entitled = standingFromTeams(user, ORG, { activeMember: true, teams: [ops] });
    assert.equal(entitled.access['manage-workspaces'], true);
    assert.equal(canSeeTeam(entitled, hidden), true);

    const free = standingFromTeams(user, ORG, { activeMember: true, teams: [ops], teamsEntitled: false });
    assert.equal(free.isMember, true, 'still a member of the organization');
    assert.deepEqual(free.access, noAccess());
    assert.deepEqual([...free.teamIds], []);
    assert.equal(canSeeTeam(free, hidden), false);
    assert.equal(canSeeTeam(free, { ...hidden, id: 'team-ops' }), false);
  });

  it('owners keep everything and see the hidden teams; so does the site admin', () => {
    const owner = standingFromTeams(user, ORG, { activeMember: true, teams: [ops, owners], teamsEntitled: false });
    assert.equal(owner.isOwner, true);
    assert.equal(canSeeTeam(owner, hidden), true);
    const admin = standingFromTeams(siteAdmin, ORG, { activeMember: false, teams: [], teamsEntitled: false });
    assert.equal(canSeeTeam(admin, hidden), true);
  });

  it("a hidden team's token is no member at all", () => {
    const standing = standingFromTeams(teamToken(true), ORG, { activeMember: true, teams: [ops], teamsEntitled: false });
    assert.equal(standing.isMember, false);
    assert.deepEqual(standing.access, noAccess());
  });
});

describe('organization standing: tokens minted by the organization token', () => {
  it('act as their team but never as a person: no runs, no overrides', () => {
    const person = standingFromTeams(teamToken(true), ORG, { activeMember: true, teams: [ops] });
    const minted = standingFromTeams(teamToken(false), ORG, { activeMember: true, teams: [ops] });
    assert.deepEqual(minted.access, person.access);
    assert.equal(canQueueRuns(person), true);
    assert.equal(canQueueRuns(minted), false);
    assert.equal(taskStagePermissions(person)['can-override'], true);
    assert.equal(taskStagePermissions(minted)['can-override'], false);
  });
});
