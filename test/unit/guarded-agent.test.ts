import assert from 'node:assert/strict';
import http from 'node:http';
import { isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { postSignedJson } from '../../src/outbound/signed-request.js';
import { DestinationPolicy, parseDestinationRules, type Destination } from '../../src/outbound/destination-policy.js';
import { createGuardedAgent, DestinationDeniedError } from '../../src/outbound/guarded-agent.js';
import { TaskDestinations } from '../../src/outbound/task-destinations.js';

/** A DNS stand-in: each name answers the addresses its entry gives (a function may change its answer per call). */
function fakeLookup(table: Record<string, string[] | (() => string[])>): { lookup: LookupFunction; calls: string[] } {
  const calls: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = (typeof entry === 'function' ? entry() : entry) ?? [];
    setImmediate(() => {
      if (addresses.length === 0) {
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
        return;
      }
      const answers = addresses.map((address) => ({ address, family: isIP(address) }));
      if (options.all) callback(null, answers);
      else callback(null, answers[0]!.address, answers[0]!.family);
    });
  }) as unknown as LookupFunction;
  return { lookup, calls };
}

interface Recorded {
  host: string | undefined;
  localPort: number;
}

/** A run task service stand-in on 127.0.0.1 that closes every connection, so each request connects anew. */
async function taskService(): Promise<{ port: number; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const server = http.createServer((request, response) => {
    requests.push({ host: request.headers.host, localPort: request.socket.localPort ?? 0 });
    request.resume();
    request.on('end', () => response.writeHead(200, { connection: 'close' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const BODY = JSON.stringify({ payload_version: 1, stage: 'test' });

describe('the guarded agent checks the address it connects to', () => {
  let service: Awaited<ReturnType<typeof taskService>>;
  before(async () => {
    service = await taskService();
  });
  after(async () => {
    await service.close();
  });

  function agentFor(allow: string, deny: string, table: Record<string, string[] | (() => string[])>) {
    const policy = new DestinationPolicy({ allow: parseDestinationRules(allow), deny: parseDestinationRules(deny) });
    const checked: Destination[] = [];
    const dns = fakeLookup(table);
    const agent = createGuardedAgent(
      (destination) => {
        checked.push(destination);
        return policy.decide(destination, { listeners: [], localAddresses: [] });
      },
      { lookup: dns.lookup },
    );
    return { agent, checked, calls: dns.calls };
  }

  it('a host name is connected to at the address its DNS answer gave, after that address was checked', async () => {
    const { agent, checked } = agentFor('', '', { 'tasks.test': ['127.0.0.1'] });
    try {
      const seen = service.requests.length;
      assert.deepEqual(await postSignedJson(`http://tasks.test:${service.port}/hook`, BODY, null, 2000, agent), { status: 200 });
      assert.equal(service.requests.length, seen + 1);
      assert.equal(service.requests[seen]!.host, `tasks.test:${service.port}`, 'the Host header keeps the name');
      assert.deepEqual(checked, [{ host: 'tasks.test', address: '127.0.0.1', port: service.port }]);
    } finally {
      await agent.close();
    }
  });

  it('a host name whose DNS answer is a denied address is refused before connecting; nothing reaches the address', async () => {
    const { agent } = agentFor('', '127.0.0.0/8', { 'tasks.test': ['127.0.0.1'], 'metadata.test': ['169.254.169.254'] });
    try {
      const seen = service.requests.length;
      const refused = await postSignedJson(`http://tasks.test:${service.port}/hook`, BODY, null, 2000, agent);
      assert.deepEqual(refused, { error: 'unreachable', detail: `ETASKURLDENIED: 127.0.0.1 is denied by TEAMSTAGE_TASK_URL_DENY` });
      const started = Date.now();
      const metadata = await postSignedJson('http://metadata.test/latest/meta-data/', BODY, null, 5000, agent);
      assert.equal((metadata as { error: string }).error, 'unreachable');
      assert.match((metadata as { detail: string }).detail, /^ETASKURLDENIED: 169\.254\.169\.254 is a link-local address/);
      // Half the 5 s the call allows: a connection attempt to the address would take all of it.
      assert.ok(Date.now() - started < 2500, 'refused at once, not after a connection attempt timed out');
      const overTls = await postSignedJson('https://metadata.test/latest/meta-data/', BODY, null, 5000, agent);
      assert.match((overTls as { detail: string }).detail, /^ETASKURLDENIED: 169\.254\.169\.254/, 'https connections resolve through the same check');
      assert.equal(service.requests.length, seen);
    } finally {
      await agent.close();
    }
  });

  it('an address literal is checked too (DNS is not asked), IPv4, IPv6 and mapped IPv6', async () => {
    const { agent, calls } = agentFor('', '127.0.0.0/8, ::1', {});
    try {
      const seen = service.requests.length;
      for (const url of [`http://127.0.0.1:${service.port}/`, `http://[::1]:${service.port}/`, `http://[::ffff:127.0.0.1]:${service.port}/`, 'http://169.254.169.254/', 'https://[fe80::1]/']) {
        const refused = await postSignedJson(url, BODY, null, 2000, agent);
        assert.equal((refused as { error: string }).error, 'unreachable', url);
        assert.match((refused as { detail: string }).detail, /^ETASKURLDENIED: /, url);
      }
      assert.equal(service.requests.length, seen);
      assert.deepEqual(calls, []);
    } finally {
      await agent.close();
    }
  });

  it('of a mixed DNS answer only the allowed addresses are used', async () => {
    const { agent } = agentFor('', '', { 'mixed.test': ['169.254.169.254', '127.0.0.1'] });
    try {
      assert.deepEqual(await postSignedJson(`http://mixed.test:${service.port}/`, BODY, null, 2000, agent), { status: 200 });
    } finally {
      await agent.close();
    }
  });

  it('DNS cannot swap the address: every new connection checks its own answer (rebinding after a first allowed answer)', async () => {
    let answers = 0;
    const { agent } = agentFor('', '', { 'rebind.test': () => (answers++ === 0 ? ['127.0.0.1'] : ['169.254.169.254']) });
    try {
      assert.deepEqual(await postSignedJson(`http://rebind.test:${service.port}/`, BODY, null, 2000, agent), { status: 200 });
      const second = await postSignedJson(`http://rebind.test:${service.port}/`, BODY, null, 2000, agent);
      assert.match((second as { detail: string }).detail, /^ETASKURLDENIED: 169\.254\.169\.254/);
      assert.equal(answers, 2, 'the service closed the first connection, so the second request looked the name up again');
    } finally {
      await agent.close();
    }
  });

  it('DNS failures stay what they are', async () => {
    const { agent } = agentFor('', '', {});
    try {
      const missing = await postSignedJson('http://nowhere.test/', BODY, null, 2000, agent);
      assert.deepEqual(missing, { error: 'unreachable', detail: 'getaddrinfo ENOTFOUND nowhere.test' });
    } finally {
      await agent.close();
    }
  });

  it('the denial is an error with a code, so callers can tell it from a network error', () => {
    const error = new DestinationDeniedError('169.254.169.254 is a link-local address');
    assert.equal(error.code, 'ETASKURLDENIED');
    assert.ok(error instanceof Error);
  });
});

describe('task destinations: the policy with this server\'s listeners', () => {
  it('denies the configured listener and the one actually bound, by literal and by name; the port is the URL\'s', async () => {
    const service = await taskService();
    const dns = fakeLookup({ 'self.test': ['127.0.0.1'] });
    const destinations = new TaskDestinations(
      { allow: [], deny: [] },
      [{ address: '127.0.0.1', port: 8080 }],
      { lookup: dns.lookup, localAddresses: () => [] },
    );
    try {
      assert.deepEqual(await postSignedJson(`http://self.test:${service.port}/`, BODY, null, 2000, destinations.dispatcher), { status: 200 });
      destinations.listening([{ address: '127.0.0.1', port: service.port }]);
      const refused = await postSignedJson(`http://self.test:${service.port}/`, BODY, null, 2000, destinations.dispatcher);
      assert.match((refused as { detail: string }).detail, /own listener/);
      assert.deepEqual(destinations.verdictWithoutLookup('http://127.0.0.1:8080/x'), { allowed: false, reason: "127.0.0.1 port 8080 is this server's own listener" });
      assert.deepEqual(destinations.verdictWithoutLookup('http://127.0.0.1/x'), { allowed: true }, 'port 80');
      assert.equal(destinations.verdictWithoutLookup('http://127.0.0.1:80/x')?.allowed, true);
      assert.equal(destinations.verdictWithoutLookup('https://127.0.0.1:8080/x')?.allowed, false);
      assert.match((destinations.verdictWithoutLookup('http://[::ffff:a9fe:a9fe]/') as { reason: string }).reason, /link-local/);
      assert.equal(destinations.verdictWithoutLookup('http://self.test:8080/'), undefined, 'a name is decided at connect time, on its DNS answer');
    } finally {
      await destinations.close();
      await service.close();
    }
  });

  it('a wildcard listener (HOST=0.0.0.0) covers every local address on its port', () => {
    const destinations = new TaskDestinations({ allow: [], deny: [] }, [{ address: '0.0.0.0', port: 8080 }], { localAddresses: () => ['10.1.2.3'] });
    try {
      assert.equal(destinations.verdictWithoutLookup('http://10.1.2.3:8080/')?.allowed, false);
      assert.equal(destinations.verdictWithoutLookup('http://127.0.0.7:8080/')?.allowed, false);
      assert.equal(destinations.verdictWithoutLookup('http://10.1.2.4:8080/')?.allowed, true);
    } finally {
      void destinations.close();
    }
  });
});
