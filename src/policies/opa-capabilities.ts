import { execFile, execFileSync, type ExecFileOptionsWithStringEncoding, type ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * What a policy may call (issue 34): a policy judges the plan and the run it is given, and nothing else. OPA
 * ships built-ins that reach outside that: `http.send` fetched any URL from the server's own network (loopback,
 * Teamstage's API, cloud metadata addresses: around the destination rules run task URLs obey), and
 * `net.lookup_ip_addr` resolves names. Others answer from the process or the moment rather than from the input
 * (`opa.runtime`: OPA's environment and configuration; `time.now_ns`, `rand.intn`, `uuid.rfc4122`: the clock
 * and chance; JWT and X.509 verification read the clock; JSON schema checks may fetch a schema's remote `$ref`),
 * so the same plan could pass today and fail tomorrow.
 *
 * The rule: every built-in the pinned OPA itself marks non-deterministic (its capabilities say so: they are
 * exactly the ones that depend on the world outside the policy and its input) is removed, and so is any named
 * below whatever a future OPA says of it; `allow_net` is empty as well, so even a network built-in that slipped
 * through could reach no host. OPA enforces the set when a policy is uploaded (`opa check --capabilities`, a 422
 * naming the built-in) and again at every evaluation (`opa eval --capabilities`), so a policy stored before
 * this rule, or written into the database by hand, cannot reach out either: it errors.
 *
 * Pure built-ins stay, `net.cidr_*` among them (they compute on the CIDR strings of a plan, a common check).
 */
export const ALWAYS_UNAVAILABLE = [
  'http.send', 'net.lookup_ip_addr', 'opa.runtime', 'time.now_ns', 'rand.intn', 'uuid.rfc4122',
  // Not marked by OPA, but they check a certificate's validity against the clock.
  'crypto.x509.parse_and_verify_certificates', 'crypto.x509.parse_and_verify_certificates_with_options',
] as const;

interface Builtin {
  name: string;
  nondeterministic?: boolean;
}

/** OPA's capabilities document (`opa capabilities --current`): only what this module reads is typed. */
export interface Capabilities {
  builtins: Builtin[];
  allow_net?: string[];
  [other: string]: unknown;
}

export interface RestrictedCapabilities {
  capabilities: Capabilities;
  /** The built-ins taken away, sorted: what the README lists and a policy using one is told. */
  removed: string[];
}

/** The capabilities without any built-in that reaches outside the plan, and with no host allowed. */
export function restrictCapabilities(current: Capabilities): RestrictedCapabilities {
  const unavailable = (builtin: Builtin) => builtin.nondeterministic === true || (ALWAYS_UNAVAILABLE as readonly string[]).includes(builtin.name);
  const removed = [...new Set(current.builtins.filter(unavailable).map((builtin) => builtin.name))].sort();
  return { capabilities: { ...current, builtins: current.builtins.filter((builtin) => !unavailable(builtin)), allow_net: [] }, removed };
}

/** The restricted capabilities of an OPA binary, written to a private file once per binary (they do not change under a running process). */
export interface CapabilitiesFile extends RestrictedCapabilities {
  file: string;
}

const WRITTEN = new Map<string, CapabilitiesFile>();

/**
 * Asks the binary for its built-ins once and writes the restricted set. Synchronous when the start did not ask
 * ahead (capabilitiesAhead below): tests build many apps, each asking.
 */
export function capabilitiesFileFor(opaPath: string): CapabilitiesFile {
  const known = WRITTEN.get(opaPath);
  if (known) return known;
  return written(opaPath, execFileSync(opaPath, CAPABILITIES_ARGS, CAPABILITIES_OPTIONS));
}

/**
 * The same, without blocking: `serve` asks while it migrates, so the later synchronous call finds the file
 * written. A failure is left for that call to meet and report (the engine then refuses to judge).
 */
export function capabilitiesAhead(opaPath: string): Promise<void> {
  if (WRITTEN.has(opaPath)) return Promise.resolve();
  return new Promise((resolve) => {
    execFile(opaPath, CAPABILITIES_ARGS, CAPABILITIES_ASYNC_OPTIONS, (error, stdout) => {
      try {
        if (!error && !WRITTEN.has(opaPath)) written(opaPath, stdout);
      } catch {
        // Not JSON: capabilitiesFileFor meets it again and the engine says why.
      }
      resolve();
    });
  });
}

const CAPABILITIES_ARGS = ['capabilities', '--current'];
// execFile (asynchronous) pipes the output as well; only the synchronous one is told not to inherit stdin.
const CAPABILITIES_ASYNC_OPTIONS: ExecFileOptionsWithStringEncoding = { encoding: 'utf8', timeout: 10_000, maxBuffer: 16 * 1024 * 1024 };
const CAPABILITIES_OPTIONS: ExecFileSyncOptionsWithStringEncoding = { ...CAPABILITIES_ASYNC_OPTIONS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] };

function written(opaPath: string, stdout: string): CapabilitiesFile {
  const restricted = restrictCapabilities(JSON.parse(stdout) as Capabilities);
  const dir = mkdtempSync(path.join(tmpdir(), 'teamstage-opa-capabilities-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'capabilities.json');
  writeFileSync(file, JSON.stringify(restricted.capabilities), { mode: 0o600 });
  const result = { ...restricted, file };
  WRITTEN.set(opaPath, result);
  return result;
}

/**
 * The unavailable built-in an OPA message is about, if any: OPA refuses a call to a built-in missing from the
 * capabilities as an undefined function (`undefined function http.send`), or `net.lookup_ip_addr` as an
 * unsafe/unknown ref in some positions; the name is matched against the removed list, never guessed.
 */
export function unavailableBuiltinIn(message: string, removed: readonly string[]): string | undefined {
  for (const match of message.matchAll(/undefined (?:function|ref):? ([A-Za-z_][\w.]*)/g)) {
    const name = match[1]!;
    if (removed.includes(name)) return name;
  }
  return removed.find((name) => new RegExp(`\\b${name.replace(/\./g, '\\.')}\\b`).test(message) && /undefined|unknown|unsafe/.test(message));
}
