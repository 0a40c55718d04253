import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../test/helpers/http-client.js';
import { median } from './measure.js';
import { fmt } from './row-text.js';
import { extraScenarios, type ScenarioContext } from './scenarios.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(root, 'test/fixtures/terraform-plans');
export const GATED_PIPELINE = 'gated pipeline';
const TARGET_MS = 1500;

/**
 * Issue 27's target: what Teamstage adds to a pipeline. One CI job as examples/pipeline/gate.sh runs it —
 * fetch the client with curl, plan-start, terraform plan and show, plan-finish (one mandatory post-plan run
 * task, the example service, passes), apply-start, terraform apply, apply-finish — against the same job
 * with terraform alone (init, plan, show, apply). terraform is a stand-in that answers at once (with a real
 * plan from the fixtures), so the difference is Teamstage's: the client's four starts, its requests, the
 * run's progress and the task's round trip.
 */
async function gatedPipeline(context: ScenarioContext): Promise<void> {
  const { server, seeded, rows } = context;
  const client = new HttpClient(server.url, 2);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-bench-pipeline-'));
  // @ts-expect-error: a plain JavaScript example without type declarations
  const { createServer } = await import('../examples/run-task-service/server.mjs');
  const service: Server = createServer({ hmacKey: 'bench-pipeline', denyResourceTypes: [], allowDestroy: false, failWorkspacePattern: '', verdictDelayMs: 0, quiet: true });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  try {
    const call = async (method: string, url: string, body: unknown) => {
      const answer = await client.request(method, url, seeded.ownerToken, body);
      if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${answer.text}`);
      return answer.body;
    };
    const name = `pipeline-${path.basename(work).slice(-6)}`;
    const workspace = await call('POST', `/organizations/${seeded.organization}/workspaces`, { data: { type: 'workspaces', attributes: { name, 'execution-mode': 'agent' } } });
    const task = await call('POST', `/organizations/${seeded.organization}/tasks`, {
      data: { type: 'tasks', attributes: { name: `guard-${name}`, url: `http://127.0.0.1:${(service.address() as AddressInfo).port}/`, category: 'task', 'hmac-key': 'bench-pipeline' } },
    });
    await call('POST', `/workspaces/${workspace.data.id}/tasks`, {
      data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory', stages: ['post_plan'] }, relationships: { task: { data: { type: 'tasks', id: task.data.id } } } },
    });

    const terraform = path.join(work, 'terraform');
    fs.writeFileSync(
      terraform,
      [
        '#!/usr/bin/env bash',
        'args=("$@"); [[ "${args[0]}" == -chdir=* ]] && args=("${args[@]:1}")',
        'case "${args[0]}" in',
        '  init) echo "Terraform has been successfully initialized!" ;;',
        '  plan) for a in "${args[@]}"; do [[ $a == -out=* ]] && echo binary-plan > "${a#-out=}"; done; echo "Plan: 7 to add, 0 to change, 0 to destroy." ;;',
        `  show) cat ${JSON.stringify(path.join(FIXTURES, '120_basic/plan.json'))} ;;`,
        '  apply) echo "Apply complete! Resources: 7 added, 0 changed, 0 destroyed." ;;',
        'esac',
      ].join('\n'),
      { mode: 0o755 },
    );
    // terraform alone: the same calls gate.sh makes, nothing else.
    const alone = path.join(work, 'alone.sh');
    fs.writeFileSync(
      alone,
      [
        'set -euo pipefail',
        'tf() { "$TF_BIN" -chdir="$TF_DIR" "$@"; }',
        'tf init -input=false -no-color',
        'tf plan -input=false -no-color -out="$TEAMSTAGE_OUT/plan.tfplan" 2>&1 | tee "$TEAMSTAGE_OUT/plan.log"',
        'tf show -json "$TEAMSTAGE_OUT/plan.tfplan" > "$TEAMSTAGE_OUT/plan.json"',
        'tf apply -input=false -no-color "$TEAMSTAGE_OUT/plan.tfplan" 2>&1 | tee "$TEAMSTAGE_OUT/apply.log"',
      ].join('\n'),
    );
    /** One job: its wall time, and the CPU time of its process tree (bash, curl, node, the stand-in) and of the server. */
    const job = async (script: string[], index: number): Promise<{ wallMs: number; jobCpuMs: number; serverCpuMs: number }> => {
      const out = path.join(work, `job-${index}`);
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE') || key.startsWith('TF_')) delete env[key];
      Object.assign(env, {
        TEAMSTAGE_ADDRESS: server.url,
        TEAMSTAGE_TOKEN: seeded.ownerToken,
        TEAMSTAGE_ORGANIZATION: seeded.organization,
        TEAMSTAGE_WORKSPACE: name,
        TEAMSTAGE_OUT: out,
        TF_BIN: terraform,
        TF_DIR: path.join(FIXTURES, '120_basic'),
      });
      fs.mkdirSync(out);
      const times = path.join(work, `times-${index}`);
      const serverCpuBefore = server.cpuMs() + (context.databaseCpuMs?.() ?? 0);
      const started = performance.now();
      const code = await new Promise<number | null>((resolve, reject) => {
        // GNU time reports the user and system time of the job and every process it waited for.
        const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', times, 'bash', ...script], { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.on('error', reject);
        child.on('close', (exit) => {
          clearTimeout(killer);
          if (exit !== 0) console.error(stderr);
          resolve(exit);
        });
      });
      const wallMs = performance.now() - started;
      if (code !== 0) throw new Error(`${script.join(' ')} exited ${code}`);
      const [user, system] = fs.readFileSync(times, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      return { wallMs, jobCpuMs: (user! + system!) * 1000, serverCpuMs: server.cpuMs() + (context.databaseCpuMs?.() ?? 0) - serverCpuBefore };
    };
    const jobs = Math.max(2, context.settings.rounds * 4);
    const gated: Array<Awaited<ReturnType<typeof job>>> = [];
    const baseline: Array<Awaited<ReturnType<typeof job>>> = [];
    const load: number[] = [];
    for (let index = 0; index < jobs; index++) {
      // Interleaved, so both see the same machine.
      baseline.push(await job([alone], index * 2));
      gated.push(await job([path.join(root, 'examples/pipeline/gate.sh')], index * 2 + 1));
      load.push(os.loadavg()[0]!);
    }
    const added = gated.map((run, index) => run.wallMs - baseline[index]!.wallMs);
    const addedMedian = median(added);
    const worst = Math.max(...added);
    // On a busy machine the wall time mostly measures waiting for a core; the CPU time does not.
    const cpuAdded = median(gated.map((run, index) => run.jobCpuMs - baseline[index]!.jobCpuMs));
    const serverCpu = median(gated.map((run) => run.serverCpuMs));
    rows.push({
      scenario: `${GATED_PIPELINE}: plan + apply with one passing mandatory post-plan task (gate.sh, the client fetched by curl)`,
      dialect: context.dialect,
      measured:
        `${fmt(median(gated.map((run) => run.wallMs)))} ms per job; Teamstage adds ${fmt(addedMedian)} ms (median of ${jobs}), at most ${fmt(worst)} ms; ` +
        `CPU it adds per job: the job's processes ${fmt(cpuAdded)} ms, the server${context.databaseCpuMs ? ' and PostgreSQL' : ''} ${fmt(serverCpu)} ms; ` +
        `load average ${fmt(median(load), 1)} on ${os.cpus().length} cores`,
      baseline: `${fmt(median(baseline.map((run) => run.wallMs)))} ms: the same job with terraform alone (a stand-in that answers at once)`,
      ratio: `+${(addedMedian / 1000).toFixed(2)} s`,
      target: `adds ≤ ${TARGET_MS / 1000} s (issue 27)`,
      met: addedMedian <= TARGET_MS,
    });
  } finally {
    service.closeAllConnections();
    await new Promise((resolve) => service.close(resolve));
    await client.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

extraScenarios.push({ name: GATED_PIPELINE, run: gatedPipeline });
