import type { ApproverStanding } from '../shared/override-rule.js';
import type { OrganizationGate } from './organization-gate.js';
import { overrideCallerOf, principalOfOverrider } from './task-stage-permissions.js';

/**
 * The standing now of each earlier overrider of a stage in `organizationName`, as the override rule counts
 * their approvals again (shared/override-rule.ts): null for someone no longer in the organization. Worked out
 * as the caller's own is (the gate, then `overrideCallerOf`), so whatever decides who may override decides
 * whose approval still counts.
 */
export async function approverStandings(
  gate: OrganizationGate,
  organizationName: string,
  overriders: readonly string[],
): Promise<Map<string, ApproverStanding | null>> {
  const found = new Map<string, ApproverStanding | null>();
  for (const overrider of new Set(overriders)) {
    const principal = principalOfOverrider(overrider, organizationName);
    const context = principal ? await gate.contextOf(principal, organizationName) : undefined;
    if (!context?.standing.isMember) {
      found.set(overrider, null);
      continue;
    }
    const { overrider: _key, ...standing } = overrideCallerOf(context.standing);
    found.set(overrider, standing);
  }
  return found;
}
