/**
 * The console's words for team access to a workspace (src/web/teams/workspace-access-model.ts) name exactly the
 * server's levels, custom keys and values (src/access/workspace-access.ts), in the server's order (weakest first),
 * so a level or key added on the server fails here until the console offers it too; and what a form sends.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CUSTOM_DEFAULTS as SERVER_DEFAULTS, CUSTOM_KEY_VALUES, FLAG_KEYS as SERVER_FLAGS, WORKSPACE_ACCESS_LEVELS } from '../../src/access/workspace-access.js';
import {
  ACCESS_LEVELS, accessWords, attributesOf, choiceOf, CUSTOM_DEFAULTS, FLAG_KEYS, RANKED_KEYS, type TeamWorkspaceAttributes,
} from '../../src/web/teams/workspace-access-model.js';
import { organizationReach } from '../../src/web/workspaces/organization-reach.js';

test('levels, keys, values and defaults are the server\'s', () => {
  assert.deepEqual(ACCESS_LEVELS.map((level) => level.value), [...WORKSPACE_ACCESS_LEVELS]);
  assert.deepEqual(
    Object.fromEntries(RANKED_KEYS.map(({ key, values }) => [key, values.map(([value]) => value)])),
    Object.fromEntries(Object.entries(CUSTOM_KEY_VALUES).map(([key, values]) => [key, [...values]])),
  );
  assert.deepEqual(FLAG_KEYS.map(({ key }) => key).sort(), [...SERVER_FLAGS].sort());
  assert.deepEqual(CUSTOM_DEFAULTS, SERVER_DEFAULTS);
});

test('a fixed level sends only the level; custom sends every key', () => {
  assert.deepEqual(attributesOf({ access: 'write', custom: { ...CUSTOM_DEFAULTS, runs: 'apply' } }), { access: 'write' });
  assert.deepEqual(attributesOf({ access: 'custom', custom: { ...CUSTOM_DEFAULTS, runs: 'plan', 'run-tasks': true } }), {
    access: 'custom', ...CUSTOM_DEFAULTS, runs: 'plan', 'run-tasks': true,
  });
});

test('the access in words; a row read back into the form keeps its keys', () => {
  const custom = { access: 'custom', ...CUSTOM_DEFAULTS, runs: 'apply', variables: 'read', 'workspace-locking': true } as TeamWorkspaceAttributes;
  assert.equal(accessWords({ ...custom, access: 'write' }), 'Write');
  assert.equal(accessWords(custom), 'Custom: runs Apply, variables Read, lock and unlock the workspace');
  assert.deepEqual(choiceOf(custom), { access: 'custom', custom: { ...CUSTOM_DEFAULTS, runs: 'apply', variables: 'read', 'workspace-locking': true } });
  assert.deepEqual(choiceOf(undefined).access, 'read');
});

test('organization access in words on a workspace: manage-workspaces is admin, other keys read with their power', () => {
  assert.deepEqual(organizationReach({ 'manage-workspaces': true, 'read-workspaces': true, 'manage-run-tasks': true }), { access: 'Admin', because: 'Manage workspaces' });
  assert.deepEqual(organizationReach({ 'read-workspaces': true, 'manage-run-tasks': true }), {
    access: 'Read, attach run tasks and override stages they hold',
    because: 'Read workspaces, Manage run tasks',
  });
  assert.equal(organizationReach({ 'manage-teams': true }), undefined);
});
