import type { TeamstageClient } from './teamstage-client.js';
import type { StageSnapshot } from './run-position.js';
import { AWAITING_OVERRIDE, isFinalStageStatus } from '../shared/task-stage-statuses.js';

/** Where the commands write: human lines to stderr, the one machine-readable answer to stdout. */
export interface Output {
  info(line: string): void;
  result(line: string): void;
}

export const processOutput: Output = {
  info: (line) => process.stderr.write(`${line}\n`),
  result: (line) => process.stdout.write(`${line}\n`),
};

/** Stage statuses worth printing: the stage has a verdict (or awaits one from a person). */
const settled = (status: string) => isFinalStageStatus(status) || status === AWAITING_OVERRIDE;

const OUTCOMES_SHOWN = 100;

/**
 * Prints each task stage once per settled status it reaches (an overridden stage shows again as
 * passed), with its results' messages and URLs and the outcomes the tasks reported.
 */
export class StageReporter {
  private readonly printed = new Set<string>();

  constructor(
    private readonly client: TeamstageClient,
    private readonly out: Output,
    /** Only these stages (e.g. post_plan for plan-finish); all when undefined. */
    private readonly only?: ReadonlySet<string>,
  ) {}

  async report(stages: StageSnapshot[]): Promise<void> {
    for (const stage of stages) {
      if (this.only && !this.only.has(stage.stage)) continue;
      if (!settled(stage.status)) continue;
      const key = `${stage.id}:${stage.status}`;
      if (this.printed.has(key)) continue;
      this.printed.add(key);
      await this.printStage(stage);
    }
  }

  private async printStage(stage: StageSnapshot): Promise<void> {
    const shown = (await this.client.get(`/task-stages/${stage.id}?include=task_results,policy_evaluations`)).json;
    const status = shown.data.attributes.status as string;
    this.out.info(`${stage.stage} stage: ${status}`);
    const results: any[] = (shown.included ?? []).filter((resource: any) => resource.type === 'task-results');
    for (const result of results) {
      const a = result.attributes;
      this.out.info(`  ${a['task-name']} (${a['workspace-task-enforcement-level']}): ${a.status}`);
      for (const line of String(a.message ?? '').split('\n').filter(Boolean)) this.out.info(`    ${line}`);
      if (a.url) this.out.info(`    details: ${a.url}`);
      await this.printOutcomes(result.id);
    }
    for (const evaluation of (shown.included ?? []).filter((resource: any) => resource.type === 'policy-evaluations')) {
      await this.printPolicyEvaluation(evaluation);
    }
  }

  /** A policy evaluation (issue 29) like the task results: each set, each policy's status and its violations. */
  private async printPolicyEvaluation(evaluation: any): Promise<void> {
    const count = evaluation.attributes['result-count'] ?? {};
    this.out.info(
      `  policies: ${evaluation.attributes.status} (${count.passed ?? 0} passed, ${count['advisory-failed'] ?? 0} advisory failed, ` +
        `${count['mandatory-failed'] ?? 0} mandatory failed, ${count.errored ?? 0} errored)`,
    );
    const sets = (await this.client.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes?page%5Bsize%5D=${OUTCOMES_SHOWN}`)).json;
    for (const set of sets.data ?? []) {
      const a = set.attributes;
      this.out.info(`    policy set ${a['policy-set-name']}${a.overridable ? ' (overridable)' : ''}${a.error ? `: ${a.error}` : ''}`);
      for (const outcome of (a.outcomes ?? []) as Array<{ policy_name: string; enforcement_level: string; status: string; output?: Array<{ print: string }> }>) {
        this.out.info(`      ${outcome.policy_name} (${outcome.enforcement_level}): ${outcome.status}`);
        for (const line of (outcome.output ?? []).slice(0, OUTCOMES_SHOWN)) this.out.info(`        - ${line.print}`);
      }
    }
  }

  private async printOutcomes(resultId: string): Promise<void> {
    const listed = (await this.client.get(`/task-results/${resultId}/outcomes?page%5Bsize%5D=${OUTCOMES_SHOWN}`)).json;
    for (const outcome of listed.data ?? []) {
      const a = outcome.attributes;
      const tags = Object.entries((a.tags ?? {}) as Record<string, Array<{ label: string }>>)
        .map(([name, values]) => `${name}: ${values.map((value) => value.label).join(', ')}`)
        .join('; ');
      this.out.info(`    - ${a['outcome-id']}: ${a.description}${tags ? ` [${tags}]` : ''}`);
      if (a.url) this.out.info(`      ${a.url}`);
    }
    const total = listed.meta?.pagination?.['total-count'];
    if (typeof total === 'number' && total > OUTCOMES_SHOWN) this.out.info(`    … and ${total - OUTCOMES_SHOWN} more outcomes (GET /task-results/${resultId}/outcomes)`);
  }
}
