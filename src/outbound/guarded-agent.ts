import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, Pool } from 'undici';
import type { Destination, DestinationVerdict } from './destination-policy.js';

/**
 * An undici Agent that checks every connection's address before it connects, with undici's public
 * options only: a `factory` builds one Pool per origin, whose connector knows the origin's host and port,
 * and hands node:net a `lookup` that resolves the name once, drops the addresses the check refuses, and
 * lets the socket connect only to what was checked. Checking the URL before the request instead would
 * leave a gap in which DNS could answer differently (rebinding); here the answer checked is the answer used.
 */

/** The check refused every address of the destination. A network error like any other for callers (code ETASKURLDENIED). */
export class DestinationDeniedError extends Error {
  readonly code = 'ETASKURLDENIED';
}

export type DestinationCheck = (destination: Destination) => DestinationVerdict;

export interface GuardedAgentOptions {
  /** DNS, replaceable in tests; dns.lookup (the system resolver, as node:net uses) by default. */
  lookup?: LookupFunction;
}

type LookupCallback = Parameters<LookupFunction>[2];
type LookupOptions = Parameters<LookupFunction>[1];
type Connector = ReturnType<typeof buildConnector>;

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

function withoutBrackets(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

/** node:net's lookup, answering only addresses the check allows. */
function checkedLookup(host: string, port: number, check: DestinationCheck, lookup: LookupFunction): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    lookup(hostname, { ...options, all: true }, (error, answer) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const addresses = Array.isArray(answer) ? answer : [{ address: answer, family: isIP(answer) }];
      let refusal: string | undefined;
      const allowed = addresses.filter(({ address }) => {
        const verdict = check({ host, address, port });
        if (!verdict.allowed) refusal ??= verdict.reason;
        return verdict.allowed;
      });
      if (allowed.length === 0) {
        callback(new DestinationDeniedError(refusal ?? `${hostname} resolved to no address`), '', 0);
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

function checkedConnector(origin: URL, check: DestinationCheck, lookup: LookupFunction): Connector {
  const host = withoutBrackets(origin.hostname);
  const port = Number(origin.port) || defaultPort(origin.protocol);
  const connect = buildConnector({ lookup: checkedLookup(host, port, check, lookup) });
  return (options, callback) => {
    // node:net skips `lookup` for an address literal, so the literal is checked here.
    if (isIP(options.hostname) !== 0) {
      const verdict = check({ host, address: options.hostname, port });
      if (!verdict.allowed) {
        callback(new DestinationDeniedError(verdict.reason), null);
        return;
      }
    }
    connect(options, callback);
  };
}

export function createGuardedAgent(check: DestinationCheck, options: GuardedAgentOptions = {}): Agent {
  const lookup = options.lookup ?? (dns.lookup as LookupFunction);
  return new Agent({
    factory: (origin, poolOptions) => {
      const url = new URL(String(origin));
      return new Pool(url, { ...(poolOptions as Pool.Options), connect: checkedConnector(url, check, lookup) });
    },
  });
}
