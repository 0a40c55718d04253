/**
 * Editions: a feature set is a named bundle of entitlements; each organization has one.
 * In access, below the domains: what an edition includes decides what a caller may do, and identity
 * (authentication) already needs it.
 * Static data: the site admin chooses among them, nobody edits them.
 */
export interface FeatureSet {
  id: string;
  name: string;
  teams: boolean;
  runTasks: boolean;
  /** null: no limit. */
  runTaskLimit: number | null;
  runTaskWorkspaceLimit: number | null;
  /** OPA policies and policy sets (issue 29); HCP's entitlement for policy enforcement is called `sentinel`. */
  policies: boolean;
}

export const FEATURE_SETS: readonly FeatureSet[] = [
  { id: 'fs-free', name: 'Free', teams: false, runTasks: true, runTaskLimit: 1, runTaskWorkspaceLimit: 10, policies: false },
  { id: 'fs-standard', name: 'Standard', teams: true, runTasks: true, runTaskLimit: null, runTaskWorkspaceLimit: null, policies: true },
  { id: 'fs-business', name: 'Business', teams: true, runTasks: true, runTaskLimit: null, runTaskWorkspaceLimit: null, policies: true },
];

export function featureSetByName(name: string): FeatureSet | undefined {
  return FEATURE_SETS.find((set) => set.name.toLowerCase() === name.toLowerCase());
}

export function featureSetById(id: string): FeatureSet | undefined {
  return FEATURE_SETS.find((set) => set.id === id);
}

/**
 * Whether a team counts under this edition: without the `teams` entitlement only the owners team does. The
 * others stay stored (an upgrade restores them), but grant nothing and their tokens authenticate nothing.
 */
export function editionHasTeam(featureSet: Pick<FeatureSet, 'teams'>, team: { isOwners: boolean }): boolean {
  return featureSet.teams || team.isOwners;
}

/** The stored feature set of an organization; an unknown stored name falls back to the most limited one. */
export function featureSetOf(organization: { feature_set: string }): FeatureSet {
  return featureSetByName(organization.feature_set) ?? FEATURE_SETS[0]!;
}

/** The stored feature-set names whose organizations have policies (their policy sets apply to runs). */
export const FEATURE_SETS_WITH_POLICIES: readonly string[] = FEATURE_SETS.filter((set) => set.policies).map((set) => set.name);
