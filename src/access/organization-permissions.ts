import type { OrganizationStanding } from './organization-standing.js';
import { allows } from './require-access.js';

/** What the permissions need to know about the organization beyond the caller's standing. */
export interface OrganizationFacts {
  name: string;
  /** Whether its edition has policies (policy writes are refused without). */
  policiesEntitled: boolean;
}

/**
 * The organization's `permissions` for the caller, HCP Terraform's keys (`can-manage-users`,
 * `can-update-sentinel`, … as go-tfe's OrganizationPermissions names them). Each key is the access table's
 * own answer for the action it stands for, so a permission and what the endpoint then does never disagree:
 * the table is the one home of every rule, this only names its answers.
 */
export function organizationPermissions(standing: OrganizationStanding, organization: OrganizationFacts) {
  const onOrganization = (action: 'administer' | 'invite-member' | 'create-team' | 'create-workspace' | 'create-run-task' | 'list-run-tasks') =>
    allows(standing, 'organization', action, { name: organization.name });
  const administer = onOrganization('administer');
  return {
    'can-update': administer,
    'can-destroy': administer,
    'can-create-team': onOrganization('create-team'),
    'can-create-workspace': onOrganization('create-workspace'),
    /** Invite people and remove them (HCP's name; a member of the owners team only by owners: see the membership's own permissions). */
    'can-manage-users': onOrganization('invite-member'),
    /** Write policies and policy sets (HCP's name, from the days of Sentinel; it covers OPA policies too). */
    'can-update-sentinel': allows(standing, 'policy-set', 'manage', { policiesEntitled: organization.policiesEntitled }),
    'can-read-run-tasks': onOrganization('list-run-tasks'),
    'can-manage-run-tasks': onOrganization('create-run-task'),
    'can-update-api-token': administer,
    /** Make and revoke the audit trail token, the one token that reads the audit trail (HCP's name). */
    'can-manage-auditing': administer,
    'can-access-via-teams': true,
  };
}

export type OrganizationPermissions = ReturnType<typeof organizationPermissions>;

/** A membership's `permissions` (a Teamstage extension: HCP shows none): removing it is the table's `membership delete`. */
export function membershipPermissions(standing: OrganizationStanding, membership: { inOwnersTeam: boolean }) {
  return { 'can-destroy': allows(standing, 'membership', 'delete', membership) };
}

export type MembershipPermissions = ReturnType<typeof membershipPermissions>;
