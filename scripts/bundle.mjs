/**
 * Bundles the compiled server (dist/src, from tsc) and its dependencies into one file,
 * dist/bundle/teamstage.mjs, which `npm start` and the `teamstage` command run.
 *
 * Why: Node 20 has no compile cache, and loading the server as ~1,500 separate ES modules (Kysely, TypeBox,
 * undici and Fastify are each hundreds of files) cost about 0.6 s of CPU on every start; one file loads in
 * about a third of that. tsc still type-checks and compiles; esbuild only joins the output.
 * The esbuild options are in bundle-options.mjs.
 *
 * It also builds the standalone pipeline client, dist/bundle/teamstage-pipeline.mjs: the `teamstage pipeline`
 * commands alone, with no server code and no dependency to install (bundle-options.mjs).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import fs from 'node:fs';
import { assertSelfContained, bundleOptions, keepAscii, pipelineBundleOptions } from './bundle-options.mjs';

export const BUNDLE = path.join('dist', 'bundle', 'teamstage.mjs');
/** The standalone pipeline client the server serves (src/http/routes/pipeline-client.routes.ts). */
export const PIPELINE_BUNDLE = path.join('dist', 'bundle', 'teamstage-pipeline.mjs');
/** The plan JSON check's worker thread (src/runs/plan-json-checker.ts finds it beside the bundle). */
export const WORKER_BUNDLE = path.join('dist', 'bundle', 'plan-json-check.worker.mjs');
/** The policy evaluation's worker thread (src/policies/opa-wasm-slots.ts finds it beside the bundle). */
export const POLICY_WORKER_BUNDLE = path.join('dist', 'bundle', 'opa-wasm.worker.mjs');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The worker before the server: build-if-stale.mjs dates the build by the server's bundle.
await build(bundleOptions(path.join(root, 'dist', 'src', 'runs', 'plan-json-check.worker.js'), path.join(root, WORKER_BUNDLE)));
await build(bundleOptions(path.join(root, 'dist', 'src', 'policies', 'opa-wasm.worker.js'), path.join(root, POLICY_WORKER_BUNDLE)));
await build(bundleOptions(path.join(root, 'dist', 'src', 'cli.js'), path.join(root, BUNDLE)));
keepAscii(path.join(root, WORKER_BUNDLE));
keepAscii(path.join(root, BUNDLE));

const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const pipeline = await build(pipelineBundleOptions(path.join(root, 'dist', 'src', 'pipeline', 'pipeline-main.js'), path.join(root, PIPELINE_BUNDLE), version));
assertSelfContained(pipeline.metafile);
keepAscii(path.join(root, PIPELINE_BUNDLE));
