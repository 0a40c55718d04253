import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { outsider, standingFromTeams, type CallerTeam, type OrganizationStanding } from '../../src/access/organization-standing.js';
import {
  canCreateTeams, canGrantOrganizationAccess, canSeeTeam, permissionsBesideOwnersRule, seesAllTeams, teamPermissions, type TeamFacts,
} from '../../src/access/team-permissions.js';
import type { Principal } from '../../src/core/principal.js';
import {
  ORGANIZATION_ACCESS_KEYS, fullAccess, noAccess, type OrganizationAccess, type OrganizationAccessKey,
} from '../../src/access/organization-access.js';

const ORG = 'acme';
const user: Principal = { kind: 'user', tokenId: 'at-u', userId: 'user-1', username: 'alice' };
const siteAdmin: Principal = { kind: 'site-admin', tokenId: 'at-s' };
const orgToken: Principal = { kind: 'organization', tokenId: 'at-o', organizationName: ORG };
const otherOrgToken: Principal = { kind: 'organization', tokenId: 'at-o2', organizationName: 'other' };

function access(...keys: OrganizationAccessKey[]): OrganizationAccess {
  const result = noAccess();
  for (const key of keys) result[key] = true;
  return result;
}

function team(id: string, overrides: Partial<TeamFacts> = {}): TeamFacts {
  return { id, isOwners: false, visibility: 'secret', allowMemberTokenManagement: true, ...overrides };
}

function memberOf(teams: CallerTeam[], principal: Principal = user): OrganizationStanding {
  return standingFromTeams(principal, ORG, { activeMember: true, teams });
}

const ownersTeam = team('team-owners', { isOwners: true });
const secretTeam = team('team-secret');
const visibleTeam = team('team-visible', { visibility: 'organization' });
const ALL_FALSE = {
  'can-update-membership': false,
  'can-destroy': false,
  'can-update-organization-access': false,
  'can-update-api-token': false,
  'can-update-visibility': false,
  'can-update-name': false,
  'can-update-sso-team-id': false,
  'can-update-member-token-management': false,
  'can-view-api-token': false,
};
const ALL_TRUE = Object.fromEntries(Object.keys(ALL_FALSE).map((key) => [key, true]));

describe('organization standing', () => {
  it('site admin is an owner of every organization and acts as a person', () => {
    const standing = standingFromTeams(siteAdmin, ORG, { activeMember: false, teams: [] });
    assert.equal(standing.isOwner, true);
    assert.equal(standing.isMember, true);
    assert.deepEqual(standing.access, fullAccess());
    assert.equal(standing.actsAsPerson, true);
  });

  it('the organization token owns its own organization only and is not a person', () => {
    const own = standingFromTeams(orgToken, ORG, { activeMember: false, teams: [] });
    assert.equal(own.isOwner, true);
    assert.equal(own.isMember, true);
    assert.equal(own.actsAsPerson, false);
    assert.deepEqual(own.access, fullAccess());
    const other = standingFromTeams(otherOrgToken, ORG, { activeMember: false, teams: [] });
    assert.equal(other.isOwner, false);
    assert.equal(other.isMember, false);
    assert.deepEqual(other.access, noAccess());
  });

  it('a member of the owners team is an owner with full access', () => {
    const standing = memberOf([{ id: 'team-owners', isOwners: true, access: noAccess() }]);
    assert.equal(standing.isOwner, true);
    assert.deepEqual(standing.access, fullAccess());
    assert.deepEqual([...standing.teamIds], ['team-owners']);
  });

  it('a member of several teams holds the union of their access', () => {
    const standing = memberOf([
      { id: 'team-a', isOwners: false, access: access('manage-policies') },
      { id: 'team-b', isOwners: false, access: access('manage-run-tasks') },
    ]);
    assert.equal(standing.isOwner, false);
    assert.equal(standing.isMember, true);
    assert.deepEqual(standing.access, access('manage-policies', 'manage-run-tasks'));
    assert.deepEqual([...standing.teamIds].sort(), ['team-a', 'team-b']);
  });

  it('the owners team token acts as an owner; another team token as its team', () => {
    const ownersToken: Principal = { kind: 'team', tokenId: 'at-t', organizationName: ORG, teamId: 'team-owners', serviceAccountUserId: null, actsAsPerson: true };
    assert.equal(memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }], ownersToken).isOwner, true);
    const teamToken: Principal = { kind: 'team', tokenId: 'at-t2', organizationName: ORG, teamId: 'team-a', serviceAccountUserId: null, actsAsPerson: true };
    const standing = memberOf([{ id: 'team-a', isOwners: false, access: access('manage-vcs-settings') }], teamToken);
    assert.equal(standing.isOwner, false);
    assert.deepEqual(standing.access, access('manage-vcs-settings'));
    assert.equal(standing.actsAsPerson, true);
  });

  it('an outsider is neither member nor owner and holds nothing', () => {
    const standing = outsider(user, ORG);
    assert.equal(standing.isMember, false);
    assert.equal(standing.isOwner, false);
    assert.deepEqual(standing.access, noAccess());
    assert.equal(standing.teamIds.size, 0);
  });
});

describe('team visibility', () => {
  it('owners see every team', () => {
    const owner = memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }]);
    assert.equal(seesAllTeams(owner), true);
    for (const facts of [ownersTeam, secretTeam, visibleTeam]) assert.equal(canSeeTeam(owner, facts), true);
  });

  it('a plain member sees visible teams and the secret teams they belong to, nothing else', () => {
    const member = memberOf([{ id: 'team-mine', isOwners: false, access: noAccess() }]);
    assert.equal(seesAllTeams(member), false);
    assert.equal(canSeeTeam(member, visibleTeam), true);
    assert.equal(canSeeTeam(member, team('team-mine')), true);
    assert.equal(canSeeTeam(member, secretTeam), false);
    assert.equal(canSeeTeam(member, ownersTeam), false);
  });

  it('outsiders see nothing, not even visible teams', () => {
    assert.equal(canSeeTeam(outsider(user, ORG), visibleTeam), false);
    assert.equal(canSeeTeam(standingFromTeams(otherOrgToken, ORG, { activeMember: false, teams: [] }), visibleTeam), false);
  });

  it('access-secret-teams reaches secret teams only together with one of the three management rights', () => {
    for (const right of ['manage-membership', 'manage-teams', 'manage-organization-access'] as const) {
      const standing = memberOf([{ id: 'team-x', isOwners: false, access: access('access-secret-teams', right) }]);
      assert.equal(seesAllTeams(standing), true, right);
      assert.equal(canSeeTeam(standing, secretTeam), true, right);
    }
    const alone = memberOf([{ id: 'team-x', isOwners: false, access: access('access-secret-teams') }]);
    assert.equal(canSeeTeam(alone, secretTeam), false);
    const withoutSecret = memberOf([{ id: 'team-x', isOwners: false, access: access('manage-teams', 'manage-membership') }]);
    assert.equal(canSeeTeam(withoutSecret, secretTeam), false);
  });
});

describe('team permissions', () => {
  it('an owner may do everything to a regular team', () => {
    const owner = memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }]);
    assert.deepEqual(teamPermissions(owner, secretTeam), ALL_TRUE);
    assert.deepEqual(teamPermissions(standingFromTeams(orgToken, ORG, { activeMember: false, teams: [] }), secretTeam), ALL_TRUE);
  });

  it('the owners team cannot be destroyed, renamed or have its access changed, even by an owner', () => {
    const owner = memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }]);
    assert.deepEqual(teamPermissions(owner, ownersTeam), {
      ...ALL_TRUE,
      'can-destroy': false,
      'can-update-name': false,
      'can-update-organization-access': false,
    });
  });

  it('a plain member may do nothing, even to a team they can see or belong to without token management', () => {
    const member = memberOf([{ id: 'team-mine', isOwners: false, access: noAccess() }]);
    assert.deepEqual(teamPermissions(member, visibleTeam), ALL_FALSE);
    assert.deepEqual(teamPermissions(member, team('team-mine', { allowMemberTokenManagement: false })), ALL_FALSE);
  });

  it('a member of a team with token management may manage its tokens and nothing else', () => {
    const member = memberOf([{ id: 'team-mine', isOwners: false, access: noAccess() }]);
    assert.deepEqual(teamPermissions(member, team('team-mine')), { ...ALL_FALSE, 'can-update-api-token': true, 'can-view-api-token': true });
  });

  it("a team token does not manage its own team's tokens through member token management", () => {
    const teamToken: Principal = { kind: 'team', tokenId: 'at-t', organizationName: ORG, teamId: 'team-mine', serviceAccountUserId: 'user-sa', actsAsPerson: true };
    const standing = memberOf([{ id: 'team-mine', isOwners: false, access: noAccess() }], teamToken);
    assert.deepEqual(teamPermissions(standing, team('team-mine')), ALL_FALSE);
  });

  it('manage-teams: name, sso, visibility, token setting, tokens and destroy of visible teams', () => {
    const standing = memberOf([{ id: 'team-m', isOwners: false, access: access('manage-teams', 'manage-membership') }]);
    assert.deepEqual(teamPermissions(standing, visibleTeam), { ...ALL_TRUE, 'can-update-organization-access': false });
    assert.deepEqual(teamPermissions(standing, secretTeam), ALL_FALSE, 'secret teams are out of reach');
  });

  it('manage-membership alone: membership of visible teams only', () => {
    const standing = memberOf([{ id: 'team-m', isOwners: false, access: access('manage-membership') }]);
    assert.deepEqual(teamPermissions(standing, visibleTeam), { ...ALL_FALSE, 'can-update-membership': true });
    assert.deepEqual(teamPermissions(standing, secretTeam), ALL_FALSE);
  });

  it('manage-organization-access: access of visible teams', () => {
    const standing = memberOf([{ id: 'team-m', isOwners: false, access: access('manage-organization-access') }]);
    assert.deepEqual(teamPermissions(standing, visibleTeam), { ...ALL_FALSE, 'can-update-organization-access': true });
  });

  it('access-secret-teams extends the rights to secret teams, but not to what the owners team forbids', () => {
    const standing = memberOf([
      { id: 'team-m', isOwners: false, access: access('access-secret-teams', 'manage-teams', 'manage-membership', 'manage-organization-access') },
    ]);
    assert.deepEqual(teamPermissions(standing, secretTeam), ALL_TRUE);
    assert.equal(teamPermissions(standing, ownersTeam)['can-destroy'], false);
    assert.equal(teamPermissions(standing, ownersTeam)['can-update-organization-access'], false);
  });

  it('only owners and manage-teams create teams', () => {
    assert.equal(canCreateTeams(memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }])), true);
    assert.equal(canCreateTeams(memberOf([{ id: 'team-m', isOwners: false, access: access('manage-teams', 'manage-membership') }])), true);
    assert.equal(canCreateTeams(memberOf([{ id: 'team-m', isOwners: false, access: access('manage-organization-access') }])), false);
    assert.equal(canCreateTeams(memberOf([])), false);
    assert.equal(canCreateTeams(outsider(user, ORG)), false);
  });

  it('only owners and manage-organization-access may grant organization access', () => {
    assert.equal(canGrantOrganizationAccess(memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }])), true);
    assert.equal(canGrantOrganizationAccess(standingFromTeams(orgToken, ORG, { activeMember: false, teams: [] })), true);
    assert.equal(
      canGrantOrganizationAccess(memberOf([{ id: 'team-m', isOwners: false, access: access('manage-organization-access', 'manage-teams', 'manage-membership') }])),
      true,
    );
    assert.equal(canGrantOrganizationAccess(memberOf([{ id: 'team-m', isOwners: false, access: access('manage-teams', 'manage-membership') }])), false);
    assert.equal(canGrantOrganizationAccess(outsider(user, ORG)), false);
  });

  it('property: no permission is granted on a team the caller cannot see, and the owners team is never destroyed', () => {
    const accessArb = fc.record(
      Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, fc.boolean()])) as Record<OrganizationAccessKey, fc.Arbitrary<boolean>>,
    );
    const callerTeam = fc.record({ id: fc.constantFrom('team-a', 'team-b', 'team-owners'), isOwners: fc.boolean(), access: accessArb });
    const facts = fc.record({
      id: fc.constantFrom('team-a', 'team-b', 'team-c', 'team-owners'),
      isOwners: fc.boolean(),
      visibility: fc.constantFrom('secret' as const, 'organization' as const),
      allowMemberTokenManagement: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(callerTeam, { maxLength: 3 }), fc.boolean(), facts, (teams, activeMember, target) => {
        const standing = standingFromTeams(user, ORG, { activeMember, teams });
        const permissions = teamPermissions(standing, target);
        if (!canSeeTeam(standing, target)) assert.deepEqual(permissions, ALL_FALSE);
        if (target.isOwners) {
          assert.equal(permissions['can-destroy'], false);
          assert.equal(permissions['can-update-name'], false);
          assert.equal(permissions['can-update-organization-access'], false);
          if (!standing.isOwner) {
            assert.equal(permissions['can-update-visibility'], false);
            assert.equal(permissions['can-update-sso-team-id'], false);
            assert.equal(permissions['can-update-member-token-management'], false);
          }
        }
        if (permissions['can-destroy']) assert.ok(canCreateTeams(standing) || standing.isOwner);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the owners team cannot be joined or tokened by non-owners', () => {
  it('manage-membership with access-secret-teams sees the owners team but may not change its members', () => {
    const standing = memberOf([{ id: 'team-admins', isOwners: false, access: access('manage-membership', 'access-secret-teams') }]);
    assert.equal(canSeeTeam(standing, ownersTeam), true);
    assert.equal(teamPermissions(standing, ownersTeam)['can-update-membership'], false);
    assert.equal(teamPermissions(standing, secretTeam)['can-update-membership'], true);
  });

  it('manage-teams with access-secret-teams may not create or view the owners team token', () => {
    const standing = memberOf([{ id: 'team-admins', isOwners: false, access: access('manage-teams', 'manage-membership', 'access-secret-teams') }]);
    const permissions = teamPermissions(standing, ownersTeam);
    assert.equal(permissions['can-update-api-token'], false);
    assert.equal(permissions['can-view-api-token'], false);
    assert.equal(teamPermissions(standing, secretTeam)['can-update-api-token'], true);
  });

  it('manage-teams with access-secret-teams may not change the owners team settings, though it could on any other team', () => {
    const standing = memberOf([{ id: 'team-admins', isOwners: false, access: access('manage-teams', 'manage-membership', 'access-secret-teams') }]);
    const permissions = teamPermissions(standing, ownersTeam);
    assert.equal(permissions['can-update-visibility'], false);
    assert.equal(permissions['can-update-sso-team-id'], false);
    assert.equal(permissions['can-update-member-token-management'], false);
    const beside = permissionsBesideOwnersRule(standing, ownersTeam);
    assert.equal(beside['can-update-visibility'], true, 'the owners rule alone refuses it: a 403');
    assert.equal(permissionsBesideOwnersRule(memberOf([{ id: 'team-m', isOwners: false, access: access('manage-membership', 'access-secret-teams') }]), ownersTeam)['can-update-visibility'], false);
  });

  it('owners keep every membership and token right on the owners team', () => {
    const standing = memberOf([{ id: 'team-owners', isOwners: true, access: fullAccess() }]);
    const permissions = teamPermissions(standing, ownersTeam);
    assert.equal(permissions['can-update-membership'], true);
    assert.equal(permissions['can-update-api-token'], true);
  });
});
