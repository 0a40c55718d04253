#!/usr/bin/env node
// A small run task service for Teamstage (or HCP Terraform) that judges the run's real plan: it
// verifies the request signature, answers 200 at once, downloads the plan JSON (`plan_json_api_url`,
// with the request's access token) and calls back `failed` when the plan destroys resources (a delete,
// also as half of a replace) or creates a resource of a denied type, with one outcome per offending
// resource address; `passed` otherwise. Plain Node (>= 18), no dependencies. See README.md next to this file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** A comma- or space-separated list from the environment, e.g. `aws_iam_user, aws_s3_bucket_public_access_block`. */
export function parseList(text) {
  return String(text || '')
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

const config = {
  host: process.env.HOST || '127.0.0.1',
  port: Number(process.env.PORT || 8090),
  // The same key you give the run task (`hmac-key`); when empty, signatures are not checked.
  hmacKey: process.env.HMAC_KEY || '',
  // Resource types the plan may not create (also not by a replace).
  denyResourceTypes: parseList(process.env.DENY_RESOURCE_TYPES),
  // `1` lets destroys through (only the deny list applies then).
  allowDestroy: process.env.ALLOW_DESTROY === '1',
  // Optional, the older rule of this example: a workspace whose name contains this text fails (empty: off).
  failWorkspacePattern: (process.env.FAIL_WORKSPACE_PATTERN || '').toLowerCase(),
  // Wait this long before the verdict, to watch the stage run.
  verdictDelayMs: Number(process.env.VERDICT_DELAY_MS || 0),
};

let quiet = false;
const log = (message, fields = {}) => {
  if (!quiet) console.log(JSON.stringify({ time: new Date().toISOString(), message, ...fields }));
};

/** X-TFC-Task-Signature: hex HMAC-SHA512 of the exact body bytes under the shared key. */
export function signatureMatches(body, header, key) {
  if (!key) return true;
  const expected = Buffer.from(createHmac('sha512', key).update(body).digest('hex'), 'utf8');
  const presented = Buffer.from(String(header || ''), 'utf8');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * The findings of one plan (the output of `terraform show -json`): one per resource address that the
 * plan destroys (`delete`, alone or as half of a replace) or that creates a resource of a denied type.
 * `no-op` and `read` change nothing and are never findings.
 */
export function findingsOf(plan, options = config) {
  const denied = new Set(options.denyResourceTypes ?? []);
  const findings = [];
  for (const change of Array.isArray(plan?.resource_changes) ? plan.resource_changes : []) {
    const actions = Array.isArray(change?.change?.actions) ? change.change.actions : [];
    const reasons = [];
    const deletes = actions.includes('delete');
    const creates = actions.includes('create');
    if (deletes && !options.allowDestroy) reasons.push(creates ? 'replace' : 'destroy');
    if (creates && denied.has(change.type)) reasons.push('denied-type');
    if (reasons.length > 0) {
      findings.push({ address: String(change.address), type: String(change.type), actions, reasons, actionReason: change.action_reason });
    }
  }
  return findings;
}

const REASON_TEXT = {
  destroy: 'will be destroyed',
  replace: 'will be replaced (destroyed, then created again)',
  'denied-type': 'is of a resource type on the deny list',
};

/** One run task outcome per finding, in the shape HCP Terraform's run task outcomes have. */
export function outcomeOf(finding, index, runAppUrl) {
  const what = finding.reasons.map((reason) => REASON_TEXT[reason]).join(', and ');
  const body = [
    `## ${finding.address}`,
    '',
    `\`${finding.address}\` ${what}.`,
    '',
    '| | |',
    '| --- | --- |',
    `| resource type | \`${finding.type}\` |`,
    `| planned actions | \`${finding.actions.join(', ')}\` |`,
    ...(finding.actionReason ? [`| reason (Terraform) | \`${finding.actionReason}\` |`] : []),
    '',
    finding.reasons.includes('denied-type')
      ? 'Resources of this type may not be created here. Remove it from the configuration, or ask the platform team.'
      : 'Destroying a resource loses what it holds. If this is intended, ask someone allowed to override the stage.',
  ].join('\n');
  return {
    'outcome-id': `PLAN-${String(index + 1).padStart(3, '0')}`,
    description: `${finding.address} ${what}`.slice(0, 10_000),
    body,
    url: runAppUrl ?? null,
    tags: {
      Status: [{ label: 'Denied', level: 'error' }],
      Severity: [{ label: 'High', level: 'error' }],
      Rule: finding.reasons.map((reason) => ({ label: reason, level: 'info' })),
    },
  };
}

/** The verdict on a plan: `failed` with one outcome per finding, else `passed`. */
export function judgePlan(plan, options = config, runAppUrl = undefined) {
  const findings = findingsOf(plan, options);
  const changes = Array.isArray(plan?.resource_changes) ? plan.resource_changes.length : 0;
  if (findings.length === 0) {
    return { status: 'passed', message: `Passed: none of the ${changes} resource changes destroys a resource or creates a denied type.`, outcomes: [] };
  }
  const destroys = findings.filter((finding) => finding.reasons.includes('destroy') || finding.reasons.includes('replace')).length;
  const deniedTypes = findings.filter((finding) => finding.reasons.includes('denied-type')).length;
  const parts = [];
  if (destroys > 0) parts.push(`${destroys} resource${destroys === 1 ? '' : 's'} destroyed or replaced`);
  if (deniedTypes > 0) parts.push(`${deniedTypes} of a denied type`);
  const named = findings.slice(0, 5).map((finding) => finding.address).join(', ');
  const more = findings.length > 5 ? ` and ${findings.length - 5} more` : '';
  // The callback takes at most 1000 outcomes; the message still counts them all.
  const outcomes = findings.slice(0, 1000).map((finding, index) => outcomeOf(finding, index, runAppUrl));
  return { status: 'failed', message: `Failed: ${parts.join('; ')}: ${named}${more}.`, outcomes };
}

/** The optional workspace-name rule (FAIL_WORKSPACE_PATTERN); undefined when it does not apply. */
export function workspaceRule(payload, options = config) {
  const pattern = options.failWorkspacePattern;
  const name = String(payload.workspace_name || '');
  if (!pattern || !name.toLowerCase().includes(pattern)) return undefined;
  const outcome = {
    'outcome-id': 'NAME-001',
    description: 'Workspace name is not allowed',
    body: `## Workspace name rule\n\nThe workspace name \`${name}\` contains \`${pattern}\` (FAIL_WORKSPACE_PATTERN).`,
    url: payload.run_app_url ?? null,
    tags: { Status: [{ label: 'Denied', level: 'error' }], Severity: [{ label: 'High', level: 'error' }] },
  };
  return { status: 'failed', message: `Failed: workspace name "${name}" contains "${pattern}".`, outcomes: [outcome] };
}

function readBody(request, limit = 1024 * 1024) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** PATCH the callback; retried on network errors and 5xx (the server may be restarting). 401/409/422 are final answers. */
async function callBack(payload, attributes, outcomes = []) {
  const body = {
    data: {
      type: 'task-results',
      attributes,
      relationships: { outcomes: { data: outcomes.map((attributes) => ({ type: 'task-result-outcomes', attributes })) } },
    },
  };
  for (let attempt = 1; attempt <= 8; attempt++) {
    try {
      const response = await fetch(payload.task_result_callback_url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.status < 500) {
        log('callback answered', { task_result_id: payload.task_result_id, status: attributes.status, http: response.status });
        return response.status;
      }
    } catch (error) {
      log('callback failed, will retry', { task_result_id: payload.task_result_id, error: String(error) });
    }
    await sleep(Math.min(10_000, 250 * 2 ** attempt));
  }
  return undefined;
}

/** The plan JSON, downloaded with the request's access token (valid while the result is open). */
async function downloadPlan(url, token) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
  if (!response.ok) {
    await response.arrayBuffer();
    throw new Error(`HTTP ${response.status}`);
  }
  return response.json();
}

async function check(payload, options) {
  await callBack(payload, { status: 'running', message: 'Reading the plan…' });
  await sleep(options.verdictDelayMs ?? 0);
  let verdict = workspaceRule(payload, options);
  if (!verdict && !payload.plan_json_api_url) {
    // A pre-plan stage has no plan yet: nothing to judge.
    verdict = { status: 'passed', message: `Passed: no plan at the ${payload.stage} stage.`, outcomes: [] };
  }
  if (!verdict) {
    try {
      verdict = judgePlan(await downloadPlan(payload.plan_json_api_url, payload.access_token), options, payload.run_app_url);
    } catch (error) {
      // Fail closed: a gate that cannot read the plan must not let it through.
      verdict = { status: 'failed', message: `Failed: could not read the plan JSON (${error.message}).`, outcomes: [] };
    }
  }
  log('verdict', { task_result_id: payload.task_result_id, status: verdict.status, outcomes: verdict.outcomes.length });
  await callBack(payload, { status: verdict.status, message: verdict.message }, verdict.outcomes);
}

/** The service; `options` as `config` above (tests pass their own). */
export function createServer(options = config) {
  quiet = options.quiet === true;
  const pending = new Set();
  const server = http.createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    let body;
    try {
      body = await readBody(request);
    } catch {
      response.writeHead(413).end();
      return;
    }
    if (!signatureMatches(body, request.headers['x-tfc-task-signature'], options.hmacKey)) {
      log('rejected: bad signature');
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
      return;
    }
    let payload;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      response.writeHead(400).end();
      return;
    }
    // Answer at once; the verdict comes later through the callback.
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    // The verification request sent when the task is registered carries `test-token`: nothing to call back.
    if (payload.access_token === 'test-token' || payload.stage === 'test') {
      log('verification request accepted');
      return;
    }
    log('request accepted', { task_result_id: payload.task_result_id, stage: payload.stage, workspace: payload.workspace_name });
    const work = check(payload, options).catch((error) => log('check failed', { error: String(error) }));
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });
  // For tests and graceful shutdowns: the checks still in flight.
  server.settled = () => Promise.allSettled([...pending]);
  return server;
}

// Run as a program (not imported by a test): compared by real path, since node resolves symlinks in
// import.meta.url but not in argv (a checkout reached through a symlink would otherwise never listen).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const server = createServer();
  server.listen(config.port, config.host, () => {
    log('run task service listening', {
      url: `http://${config.host}:${config.port}/`,
      signatures: config.hmacKey ? 'checked' : 'NOT checked (no HMAC_KEY)',
      denyResourceTypes: config.denyResourceTypes,
      allowDestroy: config.allowDestroy,
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
}
