/**
 * Issue 34: the built-ins taken from policies. Derived from the pinned OPA's own capabilities (every one it marks
 * non-deterministic, plus a fixed list), so this test pins the list docs/policies.md documents: a new OPA that
 * adds or drops one fails here until the docs say so.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { capabilitiesFileFor, restrictCapabilities, unavailableBuiltinIn } from '../../src/policies/opa-capabilities.js';
import { policyEngineFor } from '../../src/policies/opa-engine.js';
import { opaPath } from '../helpers/opa.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const DOCUMENTED = [
  'crypto.x509.parse_and_verify_certificates', 'crypto.x509.parse_and_verify_certificates_with_options', 'http.send', 'io.jwt.decode_verify',
  'io.jwt.encode_sign', 'io.jwt.encode_sign_raw', 'json.match_schema', 'json.verify_schema', 'net.lookup_ip_addr', 'opa.runtime', 'rand.intn',
  'time.now_ns', 'uuid.rfc4122',
];

describe('OPA capabilities for policies', () => {
  it('removes what OPA marks non-deterministic and the fixed list, allows no host, keeps the rest', () => {
    const restricted = restrictCapabilities({
      builtins: [{ name: 'http.send', nondeterministic: true }, { name: 'time.now_ns' }, { name: 'net.cidr_contains' }, { name: 'json.verify_schema', nondeterministic: true }],
      features: ['rego_v1'],
      allow_net: ['example.com'],
    });
    assert.deepEqual(restricted.removed, ['http.send', 'json.verify_schema', 'time.now_ns']);
    assert.deepEqual(restricted.capabilities, { builtins: [{ name: 'net.cidr_contains' }], features: ['rego_v1'], allow_net: [] });
  });

  it('for the pinned OPA: exactly the documented list, which docs/policies.md names', () => {
    const written = capabilitiesFileFor(opaPath());
    assert.deepEqual(written.removed, DOCUMENTED);
    const onDisk = JSON.parse(readFileSync(written.file, 'utf8'));
    assert.deepEqual(onDisk.allow_net, []);
    assert.ok(!onDisk.builtins.some((builtin: { name: string }) => DOCUMENTED.includes(builtin.name)));
    assert.ok(onDisk.builtins.some((builtin: { name: string }) => builtin.name === 'net.cidr_contains'));
    const policies = readFileSync(path.join(ROOT, 'docs/policies.md'), 'utf8');
    for (const name of DOCUMENTED) assert.ok(policies.includes(`\`${name}\``), `docs/policies.md names ${name}`);
  });

  it('finds the unavailable built-in an OPA message is about, and only a removed one', () => {
    const removed = ['http.send', 'net.lookup_ip_addr'];
    assert.equal(unavailableBuiltinIn('{"errors":[{"message":"undefined function http.send"}]}', removed), 'http.send');
    assert.equal(unavailableBuiltinIn('undefined function net.lookup_ip_addr', removed), 'net.lookup_ip_addr');
    assert.equal(unavailableBuiltinIn('undefined function data.foo.bar', removed), undefined);
    assert.equal(unavailableBuiltinIn('var x is unsafe', removed), undefined);
  });

  it('fails closed: an opa that cannot say its capabilities judges nothing (policy writes are refused)', () => {
    const fake = path.join(mkdtempSync(path.join(tmpdir(), 'fake-opa-')), 'opa');
    writeFileSync(fake, '#!/bin/sh\nif [ "$1" = version ]; then echo "Version: 0.1.0"; exit 0; fi\necho "unknown command" >&2; exit 1\n');
    chmodSync(fake, 0o755);
    const engine = policyEngineFor({ opaPath: fake, timeoutSeconds: 1, memoryMb: 128, concurrency: 1, perOrganization: 1 });
    assert.equal(engine.available, false);
    assert.match(engine.description, /did not say its capabilities .* so its built-ins cannot be restricted/);
  });
});
