import { isIP, type LookupFunction } from 'node:net';
import os from 'node:os';
import type { Dispatcher } from 'undici';
import { DestinationPolicy, type Destination, type DestinationRule, type DestinationVerdict, type Listener } from './destination-policy.js';
import { createGuardedAgent } from './guarded-agent.js';

export interface TaskDestinationsOptions {
  /** DNS, replaceable in tests. */
  lookup?: LookupFunction;
  /** This machine's interface addresses, replaceable in tests. */
  localAddresses?: () => string[];
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
}

/**
 * Where this server's run task requests may go: the operator's rules (config `tasks.urlAllow` /
 * `urlDeny`) and this server's own listeners, applied to every outbound run task request through
 * `dispatcher` (verification on task create/update and every delivery attempt).
 */
export class TaskDestinations {
  private readonly policy: DestinationPolicy;
  private listeners: Listener[];
  private readonly localAddresses: () => string[];
  readonly dispatcher: Dispatcher;

  constructor(rules: { allow: readonly DestinationRule[]; deny: readonly DestinationRule[] }, listeners: Listener[], options: TaskDestinationsOptions = {}) {
    this.policy = new DestinationPolicy(rules);
    this.listeners = [...listeners];
    this.localAddresses = options.localAddresses ?? interfaceAddresses;
    this.dispatcher = createGuardedAgent((destination) => this.check(destination), options.lookup ? { lookup: options.lookup } : {});
  }

  check(destination: Destination): DestinationVerdict {
    // Interfaces can change while the server runs, so they are read when a wildcard listener needs them.
    const localAddresses = DestinationPolicy.needsLocalAddresses(this.listeners) ? this.localAddresses() : [];
    return this.policy.decide(destination, { listeners: this.listeners, localAddresses });
  }

  /**
   * The verdict for a URL whose host is an address literal, decided without DNS so a refusal can say why;
   * undefined for a host name, whose addresses are only known (and checked) when the request connects.
   */
  verdictWithoutLookup(url: string): DestinationVerdict | undefined {
    const parsed = new URL(url);
    const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    if (isIP(host) === 0) return undefined;
    return this.check({ host, address: host, port: Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80) });
  }

  /** The addresses the server actually listens on (PORT=0 picks one only at listen time); a Unix socket path is no TCP destination. */
  listening(addresses: ReadonlyArray<string | { address: string; port: number }>): void {
    for (const bound of addresses) if (typeof bound !== 'string') this.listeners.push({ address: bound.address, port: bound.port });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
