/**
 * Takes the console screenshots the README shows (docs/screenshots): runs the browser tests that make them
 * with TEAMSTAGE_SCREENSHOTS set, so `npm test` itself never rewrites tracked images. Run it after a change
 * to the console's look (`npm run screenshots`), look at the images, and commit them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = [
  'test/browser/console-new-install.test.ts',
  'test/browser/console-runs.test.ts',
  'test/browser/console-teams.test.ts',
  'test/browser/console-run-policies.test.ts',
  'test/browser/console-decision-panel.test.ts',
  'test/browser/console-structured-plan.test.ts',
  'test/browser/console-workspace-runs.test.ts',
  'test/browser/console-designer-pass.test.ts',
  'test/browser/console-workspace-access.test.ts',
  'test/browser/console-review.test.ts',
];
// The policy-held run needs the real OPA: the one scripts/build-real-clients.sh builds, unless one is named.
const builtOpa = path.join(process.env.TEAMSTAGE_REALCLIENTS_DIR ?? path.join(os.homedir(), '.cache', 'teamstage-realclients'), 'bin', 'opa');
const env = { ...process.env, TEAMSTAGE_SCREENSHOTS: path.join(root, 'docs', 'screenshots') };
if (!env.TEAMSTAGE_OPA_PATH && fs.existsSync(builtOpa)) env.TEAMSTAGE_OPA_PATH = builtOpa;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
  cwd: root,
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
