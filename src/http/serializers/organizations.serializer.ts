import type { OrganizationStanding } from '../../access/organization-standing.js';
import type { Resource } from '../jsonapi.js';
import { featureSetOf, type FeatureSet } from '../../access/editions.js';
import { organizationPermissions } from '../../access/organization-permissions.js';
import type { OrganizationRow } from '../../organizations/organizations.repository.js';
import { settingsAttributes } from '../../organizations/organization-settings.js';
import { executionModeOf } from '../../core/execution-mode.js';

export function organizationResource(row: OrganizationRow, standing: OrganizationStanding): Resource {
  return {
    id: row.name,
    type: 'organizations',
    attributes: {
      name: row.name,
      email: row.email,
      'external-id': `org-${row.name}`,
      'created-at': row.created_at,
      'plan-identifier': featureSetOf(row).name.toLowerCase(),
      'default-execution-mode': executionModeOf(row.default_execution_mode),
      ...settingsAttributes(row),
      // HCP's count of module tests a free organization may still run: Teamstage runs none and limits none.
      'remaining-testable-count': 0,
      permissions: organizationPermissions(standing, { name: row.name, policiesEntitled: featureSetOf(row).policies }),
    },
    relationships: {
      'entitlement-set': { data: { id: `org-${row.name}`, type: 'entitlement-sets' } },
      subscription: { data: { id: `sub-${row.name}`, type: 'subscriptions' } },
    },
    links: { self: `/api/v2/organizations/${row.name}` },
  };
}

export function entitlementSetResource(row: OrganizationRow, featureSet: FeatureSet): Resource {
  return {
    id: `org-${row.name}`,
    type: 'entitlement-sets',
    attributes: {
      teams: featureSet.teams,
      'run-tasks': featureSet.runTasks,
      'run-task-limit': featureSet.runTaskLimit,
      'run-task-workspace-limit': featureSet.runTaskWorkspaceLimit,
      operations: true,
      // Teamstage keeps no state, serves no SSO and no VCS; it serves the audit trail (GET /organization/audit-trail).
      'state-storage': false,
      'vcs-integrations': false,
      // HCP's entitlement for policy enforcement (OPA included) keeps its historic name.
      sentinel: featureSet.policies,
      'private-module-registry': false,
      sso: false,
      'audit-logging': true,
      agents: false,
      'cost-estimation': false,
      'configuration-designer': false,
      'module-tests-generation': false,
      'global-run-tasks': false,
      'self-serve-billing': false,
      'user-limit': null,
    },
    links: { self: `/api/v2/entitlement-sets/org-${row.name}` },
  };
}

export function featureSetResource(featureSet: FeatureSet): Resource {
  return {
    id: featureSet.id,
    type: 'feature-sets',
    attributes: {
      name: featureSet.name,
      teams: featureSet.teams,
      'run-tasks': featureSet.runTasks,
      'run-task-limit': featureSet.runTaskLimit,
      'run-task-workspace-limit': featureSet.runTaskWorkspaceLimit,
    },
  };
}

export function subscriptionResource(row: OrganizationRow, featureSet: FeatureSet): Resource {
  return {
    id: `sub-${row.name}`,
    type: 'subscriptions',
    attributes: { 'is-active': true, 'is-public-free-tier': featureSet.name === 'Free' },
    relationships: {
      organization: { data: { id: row.name, type: 'organizations' } },
      'feature-set': { data: { id: featureSet.id, type: 'feature-sets' } },
    },
  };
}
