import { label } from '../teams/access-rules.js';

/**
 * What a team's organization access gives it on every workspace, in words, as docs/access.md's table says:
 * `manage-workspaces` is admin on all of them (the stronger of organization and team access wins); the other
 * keys that reach workspaces read them, some with a power of their own. Undefined for a team whose organization
 * access reaches no workspace. Words only: the server decides each request from the same keys.
 */
const READERS = ['read-workspaces', 'manage-run-tasks', 'manage-policy-overrides', 'manage-policies', 'manage-agent-pools'];
const POWERS: Record<string, string> = {
  'manage-run-tasks': 'attach run tasks and override stages they hold',
  'manage-policy-overrides': 'override stages held by policies',
};

export function organizationReach(access: Record<string, boolean>): { access: string; because: string } | undefined {
  if (access['manage-workspaces'] === true) return { access: 'Admin', because: label('manage-workspaces') };
  const held = READERS.filter((key) => access[key] === true);
  if (held.length === 0) return undefined;
  const powers = held.flatMap((key) => (POWERS[key] ? [POWERS[key]] : []));
  return { access: ['Read', ...powers].join(', '), because: held.map(label).join(', ') };
}
