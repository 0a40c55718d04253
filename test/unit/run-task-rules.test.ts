import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TaskStageName } from '../../src/db/schema.js';
import { featureSetByName } from '../../src/access/editions.js';
import {
  categoryProblem, descriptionProblem, enforcementLevelProblem, httpUrlProblem, resolveStages, runTaskLimitProblem, taskUrlProblem, workspaceLimitProblem,
} from '../../src/runtasks/run-task-rules.js';
import { planTaskStages, type AttachedTask } from '../../src/runs/task-stage-plan.js';
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';

const free = featureSetByName('Free')!;
const business = featureSetByName('Business')!;
const ORDER: TaskStageName[] = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];

describe('run task rules', () => {
  it('url: http(s) with a host, at most 2048 characters', () => {
    assert.equal(taskUrlProblem('https://tasks.example.com/hook'), undefined);
    assert.equal(taskUrlProblem('http://127.0.0.1:9999/'), undefined);
    for (const bad of ['', 'ftp://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'example.com/hook', 'http://', `https://x.example/${'a'.repeat(2048)}`]) {
      assert.ok(taskUrlProblem(bad), bad);
    }
  });

  it('url: no credentials and no control characters, even those the URL parser would silently drop', () => {
    assert.match(taskUrlProblem('http://user:pass@tasks.example/')!, /credentials/);
    assert.match(taskUrlProblem('http://user@tasks.example/')!, /credentials/);
    assert.match(taskUrlProblem('http://:pass@tasks.example/')!, /credentials/);
    assert.equal(taskUrlProblem('http://@tasks.example/'), undefined, 'an empty userinfo carries nothing');
    assert.equal(taskUrlProblem('https://tasks.example/hook?user=a@b'), undefined, 'an @ in the query is no credential');
    for (let code = 0; code < 0x20; code++) assert.match(taskUrlProblem(`https://tasks.example/a${String.fromCharCode(code)}b`)!, /control characters/, `U+${code}`);
    for (let code = 0x7f; code <= 0x9f; code++) assert.match(taskUrlProblem(`https://tasks.example/a${String.fromCharCode(code)}b`)!, /control characters/, `U+${code}`);
    assert.match(taskUrlProblem(' https://tasks.example/\n')!, /control characters/);
    assert.equal(taskUrlProblem('https://tasks.example/a%0Ab'), undefined, 'percent-encoded is not a control character');
    assert.equal(taskUrlProblem('https://tâches.example/é'), undefined);
  });

  it('httpUrlProblem names the field it checks', () => {
    assert.equal(httpUrlProblem('https://x.example/1', 'outcome url'), undefined);
    assert.equal(httpUrlProblem('javascript:alert(1)', 'outcome url'), 'outcome url must use http or https');
    assert.equal(httpUrlProblem('data:text/html,hi'), 'url must use http or https');
  });

  it('description at most 300 characters; category must be task; enforcement advisory or mandatory', () => {
    assert.equal(descriptionProblem('x'.repeat(300)), undefined);
    assert.ok(descriptionProblem('x'.repeat(301)));
    assert.equal(categoryProblem('task'), undefined);
    assert.ok(categoryProblem('Task'));
    assert.equal(enforcementLevelProblem('advisory'), undefined);
    assert.equal(enforcementLevelProblem('mandatory'), undefined);
    assert.ok(enforcementLevelProblem('soft-mandatory'));
  });

  it('stages: `stages` wins, legacy `stage` next, default post_plan; run order without duplicates; unknown values refused', () => {
    assert.deepEqual(resolveStages({}), { stages: ['post_plan'] });
    assert.deepEqual(resolveStages({ stage: 'pre_apply' }), { stages: ['pre_apply'] });
    assert.deepEqual(resolveStages({ stages: ['post_apply', 'pre_plan', 'post_apply'], stage: 'pre_apply' }), { stages: ['pre_plan', 'post_apply'] });
    assert.deepEqual(resolveStages({}, ['pre_apply']), { stages: ['pre_apply'] }, 'the fallback keeps an update unchanged');
    assert.deepEqual(resolveStages({ stages: [] }), { problem: 'stages must contain at least one stage', pointer: 'stages' });
    assert.equal((resolveStages({ stages: ['post_plan', 'mid_plan'] }) as { pointer: string }).pointer, 'stages');
    assert.equal((resolveStages({ stage: 'whenever' }) as { pointer: string }).pointer, 'stage');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ORDER), { minLength: 1 }), (stages) => {
        const result = resolveStages({ stages }) as { stages: TaskStageName[] };
        assert.deepEqual(result.stages, ORDER.filter((stage) => stages.includes(stage)));
      }),
    );
  });

  it('Free edition: one run task, ten workspaces per task; Business: no limits', () => {
    assert.equal(runTaskLimitProblem(free, 0), undefined);
    assert.match(runTaskLimitProblem(free, 1)!, /Free edition allows 1 run task/);
    assert.equal(workspaceLimitProblem(free, 9), undefined);
    assert.match(workspaceLimitProblem(free, 10)!, /at most 10 workspaces/);
    assert.equal(runTaskLimitProblem(business, 1000), undefined);
    assert.equal(workspaceLimitProblem(business, 1000), undefined);
  });
});

describe('task stages planned for a new run', () => {
  const task = (name: string, stages: TaskStageName[], enforcementLevel: EnforcementLevel = 'advisory'): AttachedTask => ({
    workspaceTaskId: `wstask-${name}`, taskId: `task-${name}`, taskName: name, taskUrl: `https://${name}.example`, enforcementLevel, stages,
  });

  it('the seed example: two post-plan tasks give one post-plan stage holding two results', () => {
    const planned = planTaskStages([task('a', ['post_plan']), task('b', ['post_plan'], 'mandatory')], false);
    assert.deepEqual(planned.map((stage) => stage.stage), ['post_plan']);
    assert.deepEqual(planned[0]!.tasks.map((item) => item.taskName), ['a', 'b']);
  });

  it('no tasks, no stages', () => {
    assert.deepEqual(planTaskStages([], false), []);
  });

  it('one stage per stage value with tasks, in run order; plan-only runs get no apply stages (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.subarray(ORDER, { minLength: 1 }), { maxLength: 6 }), fc.boolean(), (stageLists, planOnly) => {
        const tasks = stageLists.map((stages, index) => task(`t${index}`, stages));
        const planned = planTaskStages(tasks, planOnly);
        const expected = ORDER.filter((stage) => !(planOnly && (stage === 'pre_apply' || stage === 'post_apply')) && stageLists.some((list) => list.includes(stage)));
        assert.deepEqual(planned.map((stage) => stage.stage), expected);
        for (const stage of planned) {
          assert.deepEqual(stage.tasks.map((item) => item.taskName), tasks.filter((item) => item.stages.includes(stage.stage)).map((item) => item.taskName));
        }
      }),
    );
  });
});
