import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { standingFromTeams, type OrganizationStanding } from '../../src/access/organization-standing.js';
import { canReadRuns, taskStagePermissions } from '../../src/access/task-stage-permissions.js';
import type { Principal } from '../../src/core/principal.js';
import { ORGANIZATION_ACCESS_KEYS, fullAccess, noAccess, type OrganizationAccessKey } from '../../src/access/organization-access.js';

const ORG = 'acme';
const user: Principal = { kind: 'user', tokenId: 'at-u', userId: 'user-1', username: 'alice' };
const siteAdmin: Principal = { kind: 'site-admin', tokenId: 'at-s' };
const orgToken: Principal = { kind: 'organization', tokenId: 'at-o', organizationName: ORG };
const otherOrgToken: Principal = { kind: 'organization', tokenId: 'at-o2', organizationName: 'other' };
const ownersTeamToken: Principal = { kind: 'team', tokenId: 'at-t', organizationName: ORG, teamId: 'team-owners', serviceAccountUserId: null, actsAsPerson: true };

function memberWith(keys: OrganizationAccessKey[], principal: Principal = user, isOwners = false): OrganizationStanding {
  const access = noAccess();
  for (const key of keys) access[key] = true;
  return standingFromTeams(principal, ORG, { activeMember: true, teams: [{ id: 'team-x', isOwners, access: isOwners ? fullAccess() : access }] });
}

const NONE = { 'can-override-policy': false, 'can-override-tasks': false, 'can-override': false };
const ALL = { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true };

describe('task stage permissions', () => {
  it('owners, the site admin and the owners-team token read and override everything', () => {
    for (const standing of [
      memberWith([], user, true),
      standingFromTeams(siteAdmin, ORG, { activeMember: false, teams: [] }),
      memberWith([], ownersTeamToken, true),
    ]) {
      assert.equal(canReadRuns(standing), true);
      assert.deepEqual(taskStagePermissions(standing), ALL);
    }
  });

  it('the organization token reads but never overrides', () => {
    const standing = standingFromTeams(orgToken, ORG, { activeMember: false, teams: [] });
    assert.equal(canReadRuns(standing), true);
    assert.deepEqual(taskStagePermissions(standing), NONE);
  });

  it("another organization's token neither reads nor overrides", () => {
    const standing = standingFromTeams(otherOrgToken, ORG, { activeMember: false, teams: [] });
    assert.equal(canReadRuns(standing), false);
    assert.deepEqual(taskStagePermissions(standing), NONE);
  });

  it('manage-run-tasks gives can-override-tasks and can-override; manage-policy-overrides gives can-override-policy only', () => {
    assert.deepEqual(taskStagePermissions(memberWith(['manage-run-tasks'])), {
      'can-override-policy': false, 'can-override-tasks': true, 'can-override': true,
    });
    assert.deepEqual(taskStagePermissions(memberWith(['manage-policy-overrides'])), {
      'can-override-policy': true, 'can-override-tasks': false, 'can-override': false,
    });
    assert.deepEqual(taskStagePermissions(memberWith(['manage-run-tasks'], ownersTeamToken)), {
      'can-override-policy': false, 'can-override-tasks': true, 'can-override': true,
    }, 'a team token with manage-run-tasks acts as its team');
  });

  it('exactly the read rights let a member read runs, and none of the others does (each key alone)', () => {
    const readers = new Set(['manage-run-tasks', 'manage-policy-overrides', 'read-workspaces', 'manage-workspaces', 'manage-policies', 'manage-agent-pools']);
    for (const key of ORGANIZATION_ACCESS_KEYS) {
      const standing = memberWith([key]);
      assert.equal(canReadRuns(standing), readers.has(key), key);
      const permissions = taskStagePermissions(standing);
      assert.equal(permissions['can-override-tasks'], key === 'manage-run-tasks', key);
      assert.equal(permissions['can-override-policy'], key === 'manage-policy-overrides', key);
      assert.equal(permissions['can-override'], key === 'manage-run-tasks', key);
    }
  });

  it('a member of no team, or an outsider, can do nothing', () => {
    assert.equal(canReadRuns(memberWith([])), false);
    assert.deepEqual(taskStagePermissions(memberWith([])), NONE);
    const outsider = standingFromTeams(user, ORG, { activeMember: false, teams: [] });
    assert.equal(canReadRuns(outsider), false);
    assert.deepEqual(taskStagePermissions(outsider), NONE);
  });

  it('every subset of the override-relevant rights: can-override equals can-override-tasks', () => {
    const keys: OrganizationAccessKey[] = ['manage-run-tasks', 'manage-policy-overrides', 'read-workspaces'];
    for (let mask = 0; mask < 1 << keys.length; mask++) {
      const chosen = keys.filter((_, i) => mask & (1 << i));
      const permissions = taskStagePermissions(memberWith(chosen));
      assert.equal(permissions['can-override'], permissions['can-override-tasks']);
      assert.equal(permissions['can-override-tasks'], chosen.includes('manage-run-tasks'));
    }
  });
});
