/**
 * Takes the console screenshots the README shows (docs/screenshots): runs the browser tests that make them
 * with TEAMSTAGE_SCREENSHOTS set, so `npm test` itself never rewrites tracked images. Run it after a change
 * to the console's look (`npm run screenshots`), look at the images, and commit them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = ['test/browser/console-new-install.test.ts', 'test/browser/console-runs.test.ts', 'test/browser/console-teams.test.ts'];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TEAMSTAGE_SCREENSHOTS: path.join(root, 'docs', 'screenshots') },
});
process.exit(result.status ?? 1);
