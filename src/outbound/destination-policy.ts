import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './embedded-ipv4.js';

/**
 * Where run task requests may go: the operator's TEAMSTAGE_TASK_URL_ALLOW / _DENY rules,
 * decided for one destination — the URL's host name, the address it resolved to, and the port. Pure:
 * the caller supplies this server's listeners and local addresses, and applies the verdict at connect
 * time (guarded-agent.ts), so a DNS answer cannot change between the check and the connection.
 *
 * Order, first match wins:
 * 1. this server's own listeners: always denied (no rule lifts it: a run task is never Teamstage itself);
 * 2. an allow rule (address or host name): allowed;
 * 3. a deny rule: denied;
 * 4. link-local (169.254.0.0/16, the cloud metadata service, and fe80::/10) and unspecified addresses
 *    (0.0.0.0/8, ::, which reach this machine): denied;
 * 5. anything else: allowed — self-hosted run tasks live on private networks, so private and loopback
 *    addresses are the operator's to deny (`TEAMSTAGE_TASK_URL_DENY=0.0.0.0/0,::/0` plus an allow list
 *    turns this into allow-list mode).
 * An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo: embedded-ipv4.ts)
 * is judged as both: each step above matches if either does, so `64:ff9b::a9fe:a9fe` is link-local too.
 */

export type DestinationRule =
  | { kind: 'subnet'; network: string; prefix: number; family: 'ipv4' | 'ipv6' }
  /** One host name, compared without case and without a final dot. */
  | { kind: 'host'; name: string }
  /** `*.example.com`: every name below example.com (not example.com itself). */
  | { kind: 'domain'; name: string };

/** Where the server listens. An unspecified address (0.0.0.0, ::) or a host name means every local address. */
export interface Listener {
  address: string;
  port: number;
}

export interface Destination {
  /** The URL's host: a name, or the address itself for an address literal. */
  host: string;
  /** The address about to be connected to. */
  address: string;
  port: number;
}

export interface ServerAddresses {
  listeners: readonly Listener[];
  /** The machine's interface addresses; only consulted for listeners on every address. */
  localAddresses: readonly string[];
}

export type DestinationVerdict = { allowed: true } | { allowed: false; reason: string };

const ALLOW_VARIABLE = 'TEAMSTAGE_TASK_URL_ALLOW';
const DENY_VARIABLE = 'TEAMSTAGE_TASK_URL_DENY';

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const MAX_HOST_NAME_LENGTH = 253;

/** A host name as DNS compares it: lower case, no final dot. */
export function normalizeHostName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function isHostName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_HOST_NAME_LENGTH && name.split('.').every((label) => LABEL.test(label));
}

function withoutBrackets(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

function parseRule(entry: string): DestinationRule | undefined {
  const slash = entry.indexOf('/');
  if (slash !== -1) {
    const network = withoutBrackets(entry.slice(0, slash));
    const prefixText = entry.slice(slash + 1);
    const version = isIP(network);
    if (version === 0 || !/^\d{1,3}$/.test(prefixText)) return undefined;
    const prefix = Number(prefixText);
    if (prefix > (version === 4 ? 32 : 128)) return undefined;
    return { kind: 'subnet', network: network.toLowerCase(), prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
  }
  const address = withoutBrackets(entry);
  const version = isIP(address);
  if (version !== 0) return { kind: 'subnet', network: address.toLowerCase(), prefix: version === 4 ? 32 : 128, family: version === 4 ? 'ipv4' : 'ipv6' };
  const name = normalizeHostName(entry);
  if (name.startsWith('*.')) return isHostName(name.slice(2)) ? { kind: 'domain', name: name.slice(2) } : undefined;
  // A name of digits and dots only is a malformed address (300.1.1.1), never a host.
  if (/^[\d.]+$/.test(name)) return undefined;
  return isHostName(name) ? { kind: 'host', name } : undefined;
}

/**
 * Parses a TEAMSTAGE_TASK_URL_ALLOW / _DENY value: entries separated by commas or white space, each a CIDR
 * (`10.0.0.0/8`, `fd00::/8`), one address (`192.168.1.7`, `::1`, `[::1]`), a host name (`tasks.internal`)
 * or `*.domain`. Throws an Error naming the first bad entry.
 */
export function parseDestinationRules(raw: string | undefined): DestinationRule[] {
  const rules: DestinationRule[] = [];
  for (const entry of (raw ?? '').split(/[\s,]+/)) {
    if (entry === '') continue;
    const rule = parseRule(entry);
    if (!rule) throw new Error(`${JSON.stringify(entry)} is not a CIDR, an IP address, a host name or *.domain`);
    rules.push(rule);
  }
  return rules;
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 4 ? 'ipv4' : 'ipv6';
}

/** node:net's BlockList does the address arithmetic, including IPv4-mapped IPv6 (::ffff:a.b.c.d) and zone ids. */
function blockList(subnets: Array<{ network: string; prefix: number; family: 'ipv4' | 'ipv6' }>): BlockList {
  const list = new BlockList();
  for (const subnet of subnets) list.addSubnet(subnet.network, subnet.prefix, subnet.family);
  return list;
}

function inList(list: BlockList, address: string): boolean {
  return isIP(address) !== 0 && list.check(address, family(address));
}

const LINK_LOCAL = blockList([
  { network: '169.254.0.0', prefix: 16, family: 'ipv4' },
  { network: 'fe80::', prefix: 10, family: 'ipv6' },
]);
/** Connecting to 0.0.0.0 (or ::) reaches this machine, whichever address its listener is bound to. */
const UNSPECIFIED = blockList([
  { network: '0.0.0.0', prefix: 8, family: 'ipv4' },
  { network: '::', prefix: 128, family: 'ipv6' },
]);
const LOOPBACK = blockList([
  { network: '127.0.0.0', prefix: 8, family: 'ipv4' },
  { network: '::1', prefix: 128, family: 'ipv6' },
]);

function sameAddress(a: string, b: string): boolean {
  return isIP(b) !== 0 && inList(blockList([{ network: b, prefix: isIP(b) === 4 ? 32 : 128, family: family(b) }]), a);
}

function listensEverywhere(listener: Listener): boolean {
  return isIP(listener.address) === 0 || inList(UNSPECIFIED, listener.address);
}

/** Whether a connection to `address:port` would reach one of this server's own listeners. */
function reachesOwnListener(address: string, port: number, server: ServerAddresses): boolean {
  const listeners = server.listeners.filter((listener) => listener.port === port);
  if (listeners.length === 0) return false;
  if (inList(UNSPECIFIED, address)) return true;
  const isLocal = () => inList(LOOPBACK, address) || server.localAddresses.some((local) => sameAddress(address, local));
  return listeners.some((listener) => (listensEverywhere(listener) ? isLocal() : sameAddress(address, listener.address)));
}

interface CompiledRules {
  addresses: BlockList;
  hosts: Set<string>;
  domains: string[];
}

function compile(rules: readonly DestinationRule[]): CompiledRules {
  return {
    addresses: blockList(rules.flatMap((rule) => (rule.kind === 'subnet' ? [rule] : []))),
    hosts: new Set(rules.flatMap((rule) => (rule.kind === 'host' ? [rule.name] : []))),
    domains: rules.flatMap((rule) => (rule.kind === 'domain' ? [rule.name] : [])),
  };
}

/** What matched: the address, the host name, or nothing. */
function match(rules: CompiledRules, host: string, address: string): 'address' | 'host' | undefined {
  if (inList(rules.addresses, address)) return 'address';
  if (isIP(withoutBrackets(host)) !== 0) return undefined;
  const name = normalizeHostName(host);
  if (rules.hosts.has(name) || rules.domains.some((domain) => name.endsWith(`.${domain}`))) return 'host';
  return undefined;
}

export class DestinationPolicy {
  private readonly allow: CompiledRules;
  private readonly deny: CompiledRules;

  constructor(rules: { allow: readonly DestinationRule[]; deny: readonly DestinationRule[] }) {
    this.allow = compile(rules.allow);
    this.deny = compile(rules.deny);
  }

  decide(destination: Destination, server: ServerAddresses): DestinationVerdict {
    const { host, address, port } = destination;
    const embedded = embeddedIpv4(address);
    const addresses = embedded === undefined ? [address] : [address, embedded];
    const shown = embedded === undefined ? address : `${address} (IPv4 ${embedded})`;
    if (addresses.some((candidate) => reachesOwnListener(candidate, port, server))) {
      return { allowed: false, reason: `${shown} port ${port} is this server's own listener` };
    }
    if (addresses.some((candidate) => match(this.allow, host, candidate))) return { allowed: true };
    const denied = addresses.map((candidate) => match(this.deny, host, candidate)).find((matched) => matched !== undefined);
    if (denied) return { allowed: false, reason: `${denied === 'host' ? normalizeHostName(host) : shown} is denied by ${DENY_VARIABLE}` };
    if (addresses.some((candidate) => inList(LINK_LOCAL, candidate))) {
      return { allowed: false, reason: `${shown} is a link-local address (denied unless ${ALLOW_VARIABLE} names it)` };
    }
    if (addresses.some((candidate) => inList(UNSPECIFIED, candidate))) {
      return { allowed: false, reason: `${shown} is an unspecified address (denied unless ${ALLOW_VARIABLE} names it)` };
    }
    return { allowed: true };
  }

  /** Whether deciding needs the machine's interface addresses (some listener is on every address). */
  static needsLocalAddresses(listeners: readonly Listener[]): boolean {
    return listeners.some(listensEverywhere);
  }
}
