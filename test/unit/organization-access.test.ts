import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ORGANIZATION_ACCESS_KEYS,
  applyImplications,
  findViolations,
  fullAccess,
  mergeOrganizationAccess,
  noAccess,
  parseStoredAccess,
  unionAccess,
  type AccessChange,
  type OrganizationAccess,
  type OrganizationAccessKey,
} from '../../src/access/organization-access.js';

function access(...keys: OrganizationAccessKey[]): OrganizationAccess {
  const result = noAccess();
  for (const key of keys) result[key] = true;
  return result;
}

function violatedKeys(value: OrganizationAccess): OrganizationAccessKey[] {
  return findViolations(value).map((violation) => violation.key);
}

/** The five consistency rules of organization-access, written out independently of the implementation. */
function breaksARule(a: OrganizationAccess): boolean {
  return (
    (a['manage-projects'] && !a['manage-workspaces']) ||
    (a['read-projects'] && !a['read-workspaces']) ||
    (a['manage-teams'] && !a['manage-membership']) ||
    (a['manage-organization-access'] && !(a['manage-teams'] && a['manage-membership'])) ||
    (a['access-secret-teams'] && !(a['manage-membership'] || a['manage-teams'] || a['manage-organization-access']))
  );
}

const accessArbitrary: fc.Arbitrary<OrganizationAccess> = fc.record(
  Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, fc.boolean()])) as Record<OrganizationAccessKey, fc.Arbitrary<boolean>>,
);
const changeArbitrary: fc.Arbitrary<AccessChange> = fc.record(
  Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, fc.boolean()])) as Record<OrganizationAccessKey, fc.Arbitrary<boolean>>,
  { requiredKeys: [] },
);
/** A current state as the service can have stored it: a state that passed the rules. */
const validStateArbitrary = accessArbitrary.map(applyImplications).filter((value) => findViolations(value).length === 0);

describe('organization-access: keys and stored form', () => {
  it("has the sixteen keys, HCP Terraform's fourteen plus two", () => {
    assert.equal(ORGANIZATION_ACCESS_KEYS.length, 16);
    assert.equal(new Set(ORGANIZATION_ACCESS_KEYS).size, 16);
    for (const key of ['access-secret-teams', 'delegate-policy-overrides', 'manage-agent-pools', 'manage-organization-access'] as const) {
      assert.ok(ORGANIZATION_ACCESS_KEYS.includes(key), key);
    }
  });

  it('noAccess is all false, fullAccess is all true and breaks no rule', () => {
    assert.ok(Object.values(noAccess()).every((value) => value === false));
    assert.ok(Object.values(fullAccess()).every((value) => value === true));
    assert.deepEqual(findViolations(noAccess()), []);
    assert.deepEqual(findViolations(fullAccess()), []);
  });

  it('parseStoredAccess fills missing keys with false and ignores non-boolean values and unknown keys', () => {
    const parsed = parseStoredAccess(JSON.stringify({ 'manage-policies': true, 'manage-teams': 'yes', bogus: true }));
    assert.deepEqual(parsed, access('manage-policies'));
    assert.equal(Object.keys(parsed).length, 16);
  });

  it('unionAccess holds every right any team grants', () => {
    assert.deepEqual(unionAccess([]), noAccess());
    assert.deepEqual(unionAccess([access('manage-policies'), access('manage-run-tasks')]), access('manage-policies', 'manage-run-tasks'));
  });
});

describe('organization-access: implications', () => {
  it('manage-workspaces true makes read-workspaces true', () => {
    assert.deepEqual(applyImplications(access('manage-workspaces')), access('manage-workspaces', 'read-workspaces'));
  });

  it('manage-projects true makes read-projects true', () => {
    assert.deepEqual(applyImplications(access('manage-projects')), access('manage-projects', 'read-projects'));
  });

  it('does not imply the other way round and does not mutate its input', () => {
    const input = access('read-workspaces', 'read-projects');
    assert.deepEqual(applyImplications(input), access('read-workspaces', 'read-projects'));
    const source = access('manage-workspaces');
    applyImplications(source);
    assert.equal(source['read-workspaces'], false);
  });

  it('is applied by a merge before the rules: manage-projects with manage-workspaces is valid', () => {
    const { access: merged, violations } = mergeOrganizationAccess(noAccess(), { 'manage-projects': true, 'manage-workspaces': true });
    assert.deepEqual(violations, []);
    assert.deepEqual(merged, access('manage-projects', 'manage-workspaces', 'read-projects', 'read-workspaces'));
  });
});

describe('organization-access: the five rules', () => {
  it('1. manage-projects requires manage-workspaces', () => {
    assert.deepEqual(violatedKeys(access('manage-projects', 'read-projects', 'read-workspaces')), ['manage-projects']);
    assert.deepEqual(violatedKeys(access('manage-projects', 'manage-workspaces', 'read-projects', 'read-workspaces')), []);
  });

  it('2. read-projects requires read-workspaces', () => {
    assert.deepEqual(violatedKeys(access('read-projects')), ['read-projects']);
    assert.deepEqual(violatedKeys(access('read-projects', 'read-workspaces')), []);
  });

  it('3. manage-teams requires manage-membership', () => {
    assert.deepEqual(violatedKeys(access('manage-teams')), ['manage-teams']);
    assert.deepEqual(violatedKeys(access('manage-teams', 'manage-membership')), []);
  });

  it('4. manage-organization-access requires manage-teams and manage-membership', () => {
    assert.deepEqual(violatedKeys(access('manage-organization-access')), ['manage-organization-access']);
    assert.deepEqual(violatedKeys(access('manage-organization-access', 'manage-membership')), ['manage-organization-access']);
    // manage-teams without manage-membership also breaks rule 3.
    assert.deepEqual(violatedKeys(access('manage-organization-access', 'manage-teams')), ['manage-teams', 'manage-organization-access']);
    assert.deepEqual(violatedKeys(access('manage-organization-access', 'manage-teams', 'manage-membership')), []);
  });

  it('5. access-secret-teams requires one of manage-membership, manage-teams, manage-organization-access', () => {
    assert.deepEqual(violatedKeys(access('access-secret-teams')), ['access-secret-teams']);
    assert.deepEqual(violatedKeys(access('access-secret-teams', 'manage-membership')), []);
    assert.deepEqual(violatedKeys(access('access-secret-teams', 'manage-teams', 'manage-membership')), []);
    // manage-teams alone satisfies rule 5 but breaks rule 3: only rule 3 is reported.
    assert.deepEqual(violatedKeys(access('access-secret-teams', 'manage-teams')), ['manage-teams']);
    assert.deepEqual(violatedKeys(access('access-secret-teams', 'manage-organization-access')), ['manage-organization-access']);
  });

  it('names the missing keys in the detail', () => {
    const [violation] = findViolations(access('manage-organization-access'));
    assert.match(violation!.detail, /manage-organization-access requires manage-teams and manage-membership/);
    const [secret] = findViolations(access('access-secret-teams'));
    assert.match(secret!.detail, /manage-membership or manage-teams or manage-organization-access/);
  });

  it('keys without a rule never violate anything', () => {
    const free = ['manage-policies', 'manage-policy-overrides', 'manage-run-tasks', 'manage-vcs-settings', 'manage-agent-pools',
      'manage-providers', 'manage-modules', 'delegate-policy-overrides', 'read-workspaces', 'manage-workspaces', 'manage-membership'] as const;
    assert.deepEqual(violatedKeys(access(...free)), []);
  });
});

describe('organization-access: merge', () => {
  it('changes only the keys sent, keeping the rest of the current state', () => {
    const current = access('manage-policies', 'manage-vcs-settings');
    const { access: merged } = mergeOrganizationAccess(current, { 'manage-vcs-settings': false, 'manage-modules': true });
    assert.deepEqual(merged, access('manage-policies', 'manage-modules'));
    assert.equal(current['manage-vcs-settings'], true, 'the current state is not mutated');
  });

  it('ignores non-boolean values in the change', () => {
    const change = { 'manage-policies': 'true', 'manage-modules': null } as unknown as AccessChange;
    assert.deepEqual(mergeOrganizationAccess(noAccess(), change).access, noAccess());
  });

  it('checks the merged result, not the change alone', () => {
    // The change alone (manage-teams) breaks rule 3, but the current state holds manage-membership.
    assert.deepEqual(mergeOrganizationAccess(access('manage-membership'), { 'manage-teams': true }).violations, []);
    // The change alone is harmless, but it removes what a current right depends on.
    const current = access('manage-teams', 'manage-membership');
    assert.deepEqual(mergeOrganizationAccess(current, { 'manage-membership': false }).violations.map((v) => v.key), ['manage-teams']);
  });

  it('an implication wins over an explicit false of the implied key', () => {
    const { access: merged, violations } = mergeOrganizationAccess(access('manage-workspaces', 'read-workspaces'), { 'read-workspaces': false });
    assert.equal(merged['read-workspaces'], true);
    assert.deepEqual(violations, []);
  });
});

describe('organization-access: properties', () => {
  it('a merge reports violations exactly when its result breaks a rule, and an accepted result satisfies the implications', () => {
    fc.assert(
      fc.property(validStateArbitrary, changeArbitrary, (current, change) => {
        const { access: merged, violations } = mergeOrganizationAccess(current, change);
        assert.equal(violations.length > 0, breaksARule(merged), JSON.stringify({ current, change, merged, violations }));
        if (violations.length === 0) {
          assert.ok(!merged['manage-workspaces'] || merged['read-workspaces']);
          assert.ok(!merged['manage-projects'] || merged['read-projects']);
        }
        // Every reported key is true and is one whose rule is broken.
        for (const violation of violations) assert.equal(merged[violation.key], true);
      }),
      { numRuns: 2000 },
    );
  });

  it('a merge takes every sent key unless an implication overrides it, and keeps every key not sent', () => {
    fc.assert(
      fc.property(accessArbitrary, changeArbitrary, (current, change) => {
        const { access: merged } = mergeOrganizationAccess(current, change);
        for (const key of ORGANIZATION_ACCESS_KEYS) {
          const impliedTrue =
            (key === 'read-workspaces' && merged['manage-workspaces']) || (key === 'read-projects' && merged['manage-projects']);
          const expected = key in change ? change[key] : current[key];
          assert.equal(merged[key], impliedTrue ? true : expected, key);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('merging an empty change into a valid state changes nothing and is accepted', () => {
    fc.assert(
      fc.property(validStateArbitrary, (current) => {
        const result = mergeOrganizationAccess(current, {});
        assert.deepEqual(result.access, current);
        assert.deepEqual(result.violations, []);
      }),
    );
  });

  it('applyImplications is idempotent and only ever turns keys on', () => {
    fc.assert(
      fc.property(accessArbitrary, (value) => {
        const once = applyImplications(value);
        assert.deepEqual(applyImplications(once), once);
        for (const key of ORGANIZATION_ACCESS_KEYS) if (value[key]) assert.equal(once[key], true);
      }),
    );
  });
});
