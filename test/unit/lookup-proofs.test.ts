/**
 * A lookup's proof is a type (src/access/lookup-proofs.ts): services take `Visible<…>` or `Writable<…>`, so a row
 * that skipped the lookup's access check, or a visible thing where the service changes it, does not compile.
 * The `@ts-expect-error` lines are the test: `npm run typecheck` fails when one of them stops being an error
 * (the brand was dropped from a service's parameter or a lookup's answer).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { provenVisible, provenWritable, type Visible, type Writable } from '../../src/access/lookup-proofs.js';
import type { TaskResultRow } from '../../src/taskstages/task-stages.repository.js';
import type { PolicyEvaluationRow } from '../../src/taskstages/policy-evaluations.repository.js';
import type { TokenRow } from '../../src/identity/tokens.repository.js';
import type { PoliciesService } from '../../src/policies/policies.service.js';
import type { TaskStagesService } from '../../src/taskstages/task-stages.service.js';
import type { TokensService } from '../../src/identity/tokens.service.js';
import type { Lookups, ProofOf } from '../../src/http/lookups.js';

/** Calls checked by the compiler only (never run): the services are declared, not built. */
function compileOnly(policies: PoliciesService, stages: TaskStagesService, tokens: TokensService, lookups: { [N in keyof Lookups]: ProofOf<N> }): void {
  const visiblePolicy = lookups.policy;
  const writablePolicy = lookups['writable-policy'];
  void policies.upload(writablePolicy, 'package x');
  // @ts-expect-error a policy the caller may only see cannot be uploaded to: upload takes the writable-policy lookup's proof
  void policies.upload(visiblePolicy, 'package x');
  // @ts-expect-error a bare row (no lookup) is no proof
  void policies.download({ row: visiblePolicy.row, context: visiblePolicy.context });
  void policies.download(writablePolicy); // writable implies visible

  const result = lookups['task-result'];
  void stages.outcomes(result, { offset: 0, size: 20, number: 1 });
  const bare: TaskResultRow = { ...result };
  // @ts-expect-error a result read without the task-result lookup is no proof
  void stages.outcomes(bare, { offset: 0, size: 20, number: 1 });
  const evaluation: PolicyEvaluationRow = lookups['policy-evaluation'];
  // @ts-expect-error a policy evaluation's row without its lookup is no proof
  void stages.policySetOutcomes(evaluation, { offset: 0, size: 20, number: 1 }, []);

  const token: TokenRow = lookups.token;
  void tokens.deleteToken(undefined as never, lookups.token);
  // @ts-expect-error deleting a token needs the manageable-token lookup's proof, not just its row
  void tokens.deleteToken(undefined as never, token);
}

describe('lookup proofs', () => {
  it('are the value itself at run time (a brand is a type only)', () => {
    const row = { id: 'x' };
    const visible: Visible<{ id: string }> = provenVisible(row);
    const writable: Writable<{ id: string }> = provenWritable(visible);
    assert.equal(visible, row);
    assert.equal(writable, row);
    assert.equal(typeof compileOnly, 'function');
  });
});
