import type { Principal } from '../core/principal.js';
import type { ApproverStanding } from '../shared/override-rule.js';
import type { OrganizationStanding } from './organization-standing.js';
import { overrideCallerOf, principalOfOverrider } from './task-stage-permissions.js';

/** A principal's standing now in the stage's organization, with their access to its workspace; undefined: not there. */
export type StandingResolver = (principal: Principal) => Promise<OrganizationStanding | undefined>;

/**
 * The standing now of each earlier overrider of a stage in `organizationName`, as the override rule counts
 * their approvals again (shared/override-rule.ts): null for someone no longer in the organization. Worked out
 * as the caller's own is (the workspace gate, then `overrideCallerOf`), so whatever decides who may override,
 * team access to the workspace included, decides whose approval still counts.
 */
export async function approverStandings(
  standingOf: StandingResolver,
  organizationName: string,
  overriders: readonly string[],
): Promise<Map<string, ApproverStanding | null>> {
  const found = new Map<string, ApproverStanding | null>();
  for (const overrider of new Set(overriders)) {
    const principal = principalOfOverrider(overrider, organizationName);
    const now = principal ? await standingOf(principal) : undefined;
    if (!now?.isMember) {
      found.set(overrider, null);
      continue;
    }
    const { overrider: _key, ...standing } = overrideCallerOf(now);
    found.set(overrider, standing);
  }
  return found;
}
