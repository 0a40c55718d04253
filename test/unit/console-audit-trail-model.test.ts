/** The audit trail page's pure model (src/web/audit/audit-trail-model.ts): the words and changes of an entry, and `since`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionWords, detailsOf, resourceKind, resourceName, sinceFromLocalInput, type AuditTrailEntry } from '../../src/web/audit/audit-trail-model.js';

const entry = (resource: Partial<AuditTrailEntry['resource']>): AuditTrailEntry => ({
  id: 'e1',
  timestamp: '2026-11-26T06:40:01.123Z',
  auth: { accessor_id: 'user-1', description: 'alice', organization_id: 'acme' },
  request: { id: 'req-1' },
  resource: { id: 'team-abc', type: 'team', action: 'update', meta: null, ...resource },
});

test('details of a change: one per attribute that differs, nested access flattened, a missing value a dash', () => {
  const details = detailsOf(
    entry({
      meta: {
        name: 'platform',
        before: { visibility: 'organization', 'organization-access': { 'manage-teams': false, 'read-workspaces': true } },
        after: { visibility: 'secret', 'organization-access': { 'manage-teams': true, 'read-workspaces': true }, 'sso-team-id': 'x' },
      },
    }),
  );
  assert.deepEqual(details, [
    { attribute: 'organization-access.manage-teams', before: 'false', after: 'true' },
    { attribute: 'sso-team-id', before: '—', after: 'x' },
    { attribute: 'visibility', before: 'organization', after: 'secret' },
  ]);
  assert.deepEqual(detailsOf(entry({ meta: null })), []);
  // A before that is no object is no change, and no detail either.
  assert.deepEqual(detailsOf(entry({ meta: { before: 'not an object', name: 'x' } })), []);
});

test('details of a creation: what it was made with, leaving out its name and what is off or empty; a deletion: none; other entries: their details', () => {
  const created = entry({
    action: 'create',
    meta: { after: { name: 'ops', visibility: 'organization', 'sso-team-id': null, 'organization-access': { 'manage-teams': false, 'read-workspaces': true } } },
  });
  assert.deepEqual(detailsOf(created), [
    { attribute: 'organization-access.read-workspaces', after: 'true' },
    { attribute: 'visibility', after: 'organization' },
  ]);
  assert.deepEqual(detailsOf(entry({ action: 'destroy', meta: { before: { name: 'ops', visibility: 'secret' } } })), []);
  assert.deepEqual(detailsOf(entry({ action: 'add_members', meta: { name: 'ops', users: ['bob', 'carol'], 'organization-memberships': ['ou-1', 'ou-2'] } })), [
    { attribute: 'organization-memberships', after: 'ou-1, ou-2' },
    { attribute: 'users', after: 'bob, carol' },
  ]);
});

test('names and words: meta.name, else the name after or before, else the id; known actions as verbs', () => {
  assert.equal(resourceName(entry({ meta: { name: 'platform' } })), 'platform');
  assert.equal(resourceName(entry({ meta: { before: { name: 'old' }, after: { name: 'new' } } })), 'new');
  assert.equal(resourceName(entry({ meta: { before: { name: 'gone' } } })), 'gone');
  assert.equal(resourceName(entry({ meta: null })), 'team-abc');
  assert.equal(actionWords('create'), 'created');
  assert.equal(actionWords('destroy'), 'deleted');
  assert.equal(actionWords('override'), 'override');
  assert.equal(actionWords('apply_confirmed'), 'apply confirmed');
  assert.equal(resourceKind('organization_membership'), 'organization membership');
});

test('since: a datetime-local value becomes ISO 8601 in UTC; empty or unreadable gives none', () => {
  const local = '2026-11-26T07:30';
  assert.equal(sinceFromLocalInput(local), new Date(local).toISOString());
  assert.match(sinceFromLocalInput(local)!, /^2026-11-2\dT\d\d:30:00\.000Z$/);
  assert.equal(sinceFromLocalInput(''), undefined);
  assert.equal(sinceFromLocalInput('yesterday'), undefined);
});
