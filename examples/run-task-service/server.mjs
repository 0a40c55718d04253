#!/usr/bin/env node
// A small run task service for Teamstage (or HCP Terraform): verifies the request signature, answers
// 200 at once, then reports `running` and a verdict with outcomes through the callback URL.
// Plain Node (>= 18), no dependencies. See README.md next to this file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const config = {
  host: process.env.HOST || '127.0.0.1',
  port: Number(process.env.PORT || 8090),
  // The same key you give the run task (`hmac-key`); when empty, signatures are not checked.
  hmacKey: process.env.HMAC_KEY || '',
  // A workspace whose name contains this text fails the check.
  failPattern: (process.env.FAIL_PATTERN || 'prod').toLowerCase(),
  // `1` fails every run, whatever the workspace.
  alwaysFail: process.env.ALWAYS_FAIL === '1',
  // Wait this long before the verdict, to watch the stage run.
  verdictDelayMs: Number(process.env.VERDICT_DELAY_MS || 500),
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

/** The rule of this example: fail when the workspace name contains FAIL_PATTERN, or always with ALWAYS_FAIL=1. */
export function decide(payload, options = config) {
  const name = String(payload.workspace_name || '');
  if (options.alwaysFail) return { status: 'failed', reason: 'ALWAYS_FAIL is set' };
  if (options.failPattern && name.toLowerCase().includes(options.failPattern)) {
    return { status: 'failed', reason: `workspace name "${name}" contains "${options.failPattern}"` };
  }
  return { status: 'passed', reason: `workspace name "${name}" does not contain "${options.failPattern}"` };
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

/** Optional: look at what the run is about. The access token opens the configuration and the plan JSON while the result is open. */
async function peek(url, token) {
  if (!url) return undefined;
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return `HTTP ${response.status}`;
    return `${(await response.arrayBuffer()).byteLength} bytes`;
  } catch (error) {
    return String(error);
  }
}

async function check(payload, options) {
  await callBack(payload, { status: 'running', message: 'Checking the workspace name…' });
  const configuration = await peek(payload.configuration_version_download_url, payload.access_token);
  const plan = await peek(payload.plan_json_api_url, payload.access_token);
  await sleep(options.verdictDelayMs ?? 0);
  const verdict = decide(payload, options);
  const outcomes = [
    {
      'outcome-id': 'NAME-001',
      description: verdict.status === 'passed' ? 'Workspace name is allowed' : 'Workspace name is not allowed',
      body: `## Workspace name rule\n\n${verdict.reason}.\n\nConfiguration: ${configuration ?? 'none'}; plan JSON: ${plan ?? 'not offered at this stage'}.`,
      url: `${payload.run_app_url}#name-rule`,
      tags: {
        Status: [{ label: verdict.status === 'passed' ? 'Passed' : 'Denied', level: verdict.status === 'passed' ? 'info' : 'error' }],
        Severity: [{ label: 'High', level: verdict.status === 'passed' ? 'none' : 'error' }],
      },
    },
  ];
  await callBack(payload, { status: verdict.status, message: `${verdict.status === 'passed' ? 'Passed' : 'Failed'}: ${verdict.reason}.` }, outcomes);
}

/** The service; `options` as `config` above (tests pass their own). */
export function createServer(options = config) {
  quiet = options.quiet === true;
  return http.createServer(async (request, response) => {
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
    check(payload, options).catch((error) => log('check failed', { error: String(error) }));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createServer();
  server.listen(config.port, config.host, () => {
    log('run task service listening', { url: `http://${config.host}:${config.port}/`, signatures: config.hmacKey ? 'checked' : 'NOT checked (no HMAC_KEY)' });
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
}
