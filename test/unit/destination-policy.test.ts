import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  DestinationPolicy, parseDestinationRules, type Destination, type DestinationRule, type Listener,
} from '../../src/outbound/destination-policy.js';

const NO_SERVER = { listeners: [] as Listener[], localAddresses: [] as string[] };

function policy(allow = '', deny = ''): DestinationPolicy {
  return new DestinationPolicy({ allow: parseDestinationRules(allow), deny: parseDestinationRules(deny) });
}

/** The verdict as a short string: 'allow', or 'deny: <reason>'. */
function verdict(p: DestinationPolicy, destination: Partial<Destination> & { address: string }, server = NO_SERVER): string {
  const decided = p.decide({ host: destination.host ?? destination.address, port: destination.port ?? 443, address: destination.address }, server);
  return decided.allowed ? 'allow' : `deny: ${decided.reason}`;
}

const allowed = (p: DestinationPolicy, destination: Partial<Destination> & { address: string }, server = NO_SERVER) =>
  verdict(p, destination, server) === 'allow';

describe('run task destination rules (TEAMSTAGE_TASK_URL_ALLOW / _DENY)', () => {
  it('parses CIDRs, single addresses, host names and *.domain wildcards, separated by commas or spaces', () => {
    assert.deepEqual(parseDestinationRules(undefined), []);
    assert.deepEqual(parseDestinationRules(''), []);
    assert.deepEqual(parseDestinationRules(' , '), []);
    const rules: DestinationRule[] = parseDestinationRules('10.0.0.0/8, fd00::/8 192.168.1.7,::1,[fe80::1],tasks.internal, *.Corp.Example ,Tasks.Example.COM.,single');
    assert.deepEqual(rules, [
      { kind: 'subnet', network: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { kind: 'subnet', network: 'fd00::', prefix: 8, family: 'ipv6' },
      { kind: 'subnet', network: '192.168.1.7', prefix: 32, family: 'ipv4' },
      { kind: 'subnet', network: '::1', prefix: 128, family: 'ipv6' },
      { kind: 'subnet', network: 'fe80::1', prefix: 128, family: 'ipv6' },
      { kind: 'host', name: 'tasks.internal' },
      { kind: 'domain', name: 'corp.example' },
      { kind: 'host', name: 'tasks.example.com' },
      { kind: 'host', name: 'single' },
    ]);
    assert.deepEqual(parseDestinationRules('0.0.0.0/0,::/0'), [
      { kind: 'subnet', network: '0.0.0.0', prefix: 0, family: 'ipv4' },
      { kind: 'subnet', network: '::', prefix: 0, family: 'ipv6' },
    ]);
  });

  it('refuses anything else, naming the bad entry', () => {
    for (const bad of [
      '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/x', '10.0.0.0/-1', '10.0.0.0/8/9', 'host/8', '300.1.1.1', '1.2.3.4.5/8',
      'http://tasks.example', 'tasks.example:443', 'user@tasks.example', 'a..b', '*.', '*', '*.*.example', 'a*.example', '.example',
      '-bad.example', 'bad-.example', `${'a'.repeat(64)}.example`, `${'abc.'.repeat(64)}com`,
    ]) {
      assert.throws(() => parseDestinationRules(`10.0.0.0/8,${bad}`), (error: Error) => error.message.includes(JSON.stringify(bad.trim())), bad);
    }
  });

  it('a bad value stops the server at start with the variable named', () => {
    assert.throws(() => loadConfig({ TEAMSTAGE_TASK_URL_ALLOW: '10.0.0.0/33' }), (error: Error) => error instanceof ConfigError && /TEAMSTAGE_TASK_URL_ALLOW/.test(error.message));
    assert.throws(() => loadConfig({ TEAMSTAGE_TASK_URL_DENY: 'http://x' }), (error: Error) => error instanceof ConfigError && /TEAMSTAGE_TASK_URL_DENY/.test(error.message));
    const config = loadConfig({ TEAMSTAGE_TASK_URL_ALLOW: '10.1.0.0/16', TEAMSTAGE_TASK_URL_DENY: '10.0.0.0/8' });
    assert.deepEqual(config.tasks.urlAllow, [{ kind: 'subnet', network: '10.1.0.0', prefix: 16, family: 'ipv4' }]);
    assert.deepEqual(config.tasks.urlDeny, [{ kind: 'subnet', network: '10.0.0.0', prefix: 8, family: 'ipv4' }]);
    assert.deepEqual(loadConfig({}).tasks.urlAllow, []);
    assert.deepEqual(loadConfig({}).tasks.urlDeny, []);
  });
});

describe('run task destination policy: the defaults', () => {
  const defaults = policy();

  it('public, private and loopback addresses are allowed (self-hosted run tasks live on private networks)', () => {
    for (const address of ['93.184.216.34', '10.0.0.1', '172.16.5.4', '192.168.1.1', '127.0.0.1', '127.9.9.9', '100.64.0.1', '2001:db8::1', 'fd12::1', '::1', 'fec0::1']) {
      assert.equal(verdict(defaults, { address }), 'allow', address);
    }
  });

  it('link-local addresses (169.254.0.0/16 with the cloud metadata service, fe80::/10) are denied, in every spelling', () => {
    for (const address of [
      '169.254.169.254', '169.254.0.0', '169.254.255.255', 'fe80::1', 'fe80::a9fe:a9fe', 'febf:ffff::1', 'fe80::1%eth0',
      '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:a9fe:a9fe', 'FE80::1',
    ]) {
      assert.match(verdict(defaults, { address }), /^deny: .*link-local/, address);
    }
    for (const address of ['169.253.255.255', '169.255.0.0', 'fe7f::1', 'fec0::1']) assert.equal(verdict(defaults, { address }), 'allow', address);
  });

  it('unspecified addresses (0.0.0.0/8, ::) are denied: connecting to them reaches this machine', () => {
    for (const address of ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0']) assert.match(verdict(defaults, { address }), /^deny: .*unspecified/, address);
  });

  it('the mapped IPv6 form of an IPv4 address always gets the IPv4 verdict (property)', () => {
    const policies = [defaults, policy('10.1.0.0/16', '10.0.0.0/8,192.168.0.0/16'), policy('', '0.0.0.0/0')];
    const server = { listeners: [{ address: '127.0.0.1', port: 8080 }], localAddresses: [] };
    fc.assert(
      fc.property(fc.ipV4(), fc.constantFrom(80, 443, 8080), fc.constantFrom(...policies), (address, port, p) => {
        const hex = address.split('.').map(Number);
        const mapped = `::ffff:${((hex[0]! << 8) | hex[1]!).toString(16)}:${((hex[2]! << 8) | hex[3]!).toString(16)}`;
        const plain = verdict(p, { address, port }, server) === 'allow';
        assert.equal(verdict(p, { address: `::ffff:${address}`, port }, server) === 'allow', plain, address);
        assert.equal(verdict(p, { address: mapped, port }, server) === 'allow', plain, mapped);
      }),
    );
  });
});

describe("run task destination policy: the server's own listeners", () => {
  const defaults = policy();
  // An operator who allows everything still cannot point a run task at Teamstage itself.
  const everything = policy('0.0.0.0/0,::/0');

  it('HOST:PORT is denied on that address and port only', () => {
    const server = { listeners: [{ address: '127.0.0.1', port: 8080 }], localAddresses: ['10.1.2.3'] };
    for (const p of [defaults, everything]) {
      assert.match(verdict(p, { address: '127.0.0.1', port: 8080 }, server), /^deny: .*own listener/);
      assert.match(verdict(p, { address: '::ffff:127.0.0.1', port: 8080 }, server), /^deny: .*own listener/);
      assert.match(verdict(p, { address: '::ffff:7f00:1', port: 8080 }, server), /^deny: .*own listener/);
      assert.match(verdict(p, { address: '0.0.0.0', port: 8080 }, server), /^deny: .*own listener/, 'connecting to 0.0.0.0 reaches the loopback listener');
      assert.equal(verdict(p, { address: '127.0.0.1', port: 8081 }, server), 'allow');
      assert.equal(verdict(p, { address: '127.0.0.2', port: 8080 }, server), 'allow', 'a listener on 127.0.0.1 does not answer on 127.0.0.2');
      assert.equal(verdict(p, { address: '::1', port: 8080 }, server), 'allow');
      assert.equal(verdict(p, { address: '10.1.2.3', port: 8080 }, server), 'allow');
    }
    assert.equal(verdict(defaults, { address: '::', port: 8080 }, { listeners: [{ address: '::1', port: 8080 }], localAddresses: [] }).includes('own listener'), true);
    assert.match(verdict(defaults, { address: '::1', port: 8080 }, { listeners: [{ address: '::1', port: 8080 }], localAddresses: [] }), /own listener/);
    assert.match(verdict(defaults, { address: '::1', port: 8080 }, { listeners: [{ address: '0:0:0:0:0:0:0:1', port: 8080 }], localAddresses: [] }), /own listener/);
  });

  for (const wildcard of ['0.0.0.0', '::', 'localhost', '']) {
    it(`HOST=${wildcard || '(empty)'}: any local address on its port is denied`, () => {
      const server = { listeners: [{ address: wildcard, port: 8080 }], localAddresses: ['10.1.2.3', '2001:db8::7', 'fe80::5'] };
      for (const p of [defaults, everything]) {
        for (const address of ['127.0.0.1', '127.0.0.5', '::1', '0.0.0.0', '::', '10.1.2.3', '::ffff:10.1.2.3', '2001:db8::7', '2001:DB8:0::7', 'fe80::5']) {
          assert.match(verdict(p, { address, port: 8080 }, server), /^deny: .*own listener/, `${address}:8080`);
        }
        for (const address of ['10.1.2.4', '2001:db8::8', '93.184.216.34']) assert.equal(verdict(p, { address, port: 8080 }, server), 'allow', address);
        for (const address of ['127.0.0.1', '10.1.2.3', '::1']) assert.equal(verdict(p, { address, port: 9090 }, server), 'allow', `${address}:9090`);
      }
    });
  }

  it('every listener counts (the configured one and the one actually bound)', () => {
    const server = { listeners: [{ address: '127.0.0.1', port: 8080 }, { address: '127.0.0.1', port: 41234 }], localAddresses: [] };
    assert.match(verdict(defaults, { address: '127.0.0.1', port: 8080 }, server), /own listener/);
    assert.match(verdict(defaults, { address: '127.0.0.1', port: 41234 }, server), /own listener/);
    assert.equal(verdict(defaults, { address: '127.0.0.1', port: 41235 }, server), 'allow');
  });

  it('an allow rule by host name does not lift it either', () => {
    const server = { listeners: [{ address: '127.0.0.1', port: 8080 }], localAddresses: [] };
    assert.match(verdict(policy('localhost'), { host: 'localhost', address: '127.0.0.1', port: 8080 }, server), /own listener/);
  });
});

describe('run task destination policy: deny and allow rules', () => {
  it('a deny rule blocks its subnet, in both families and in mapped form', () => {
    const p = policy('', '10.0.0.0/8, fd00::/8, 192.168.1.7');
    for (const address of ['10.0.0.0', '10.2.3.4', '10.255.255.255', '::ffff:10.2.3.4', 'fd00::1', 'fdff:1::1', '192.168.1.7']) {
      assert.match(verdict(p, { address }), /^deny: .*TEAMSTAGE_TASK_URL_DENY/, address);
    }
    for (const address of ['11.0.0.1', '9.255.255.255', 'fe00::1', 'fc00::1', '192.168.1.8', '127.0.0.1']) assert.equal(verdict(p, { address }), 'allow', address);
  });

  it('a deny rule by host name blocks that name whatever it resolves to (case and a final dot do not matter); *.domain blocks names below it', () => {
    const p = policy('', 'tasks.internal, *.corp.example');
    for (const host of ['tasks.internal', 'TASKS.Internal', 'tasks.internal.', 'a.corp.example', 'b.a.corp.example', 'A.CORP.EXAMPLE.']) {
      assert.match(verdict(p, { host, address: '93.184.216.34' }), /^deny: .*TEAMSTAGE_TASK_URL_DENY/, host);
    }
    for (const host of ['corp.example', 'xcorp.example', 'other.internal', 'tasks.internal.example', 'sub.tasks.internal']) {
      assert.equal(verdict(p, { host, address: '93.184.216.34' }), 'allow', host);
    }
    assert.equal(verdict(p, { host: '93.184.216.34', address: '93.184.216.34' }), 'allow', 'name rules never match an address');
  });

  it('allow rules lift deny rules and the link-local default: deny everything, allow a few (allow-list mode)', () => {
    const p = policy('10.1.0.0/16, 2001:db8:1::/48, tasks.internal, *.tasks.example', '0.0.0.0/0, ::/0');
    for (const address of ['10.1.0.1', '10.1.255.255', '::ffff:10.1.2.3', '2001:db8:1::5']) assert.equal(verdict(p, { address }), 'allow', address);
    for (const address of ['10.2.0.1', '8.8.8.8', '127.0.0.1', '2001:db8:2::1', '::1']) assert.match(verdict(p, { address }), /^deny: .*TEAMSTAGE_TASK_URL_DENY/, address);
    assert.equal(verdict(p, { host: 'tasks.internal', address: '10.9.9.9' }), 'allow', 'an allowed name is trusted with whatever it resolves to');
    assert.equal(verdict(p, { host: 'eu.tasks.example', address: '8.8.8.8' }), 'allow');
    assert.match(verdict(p, { host: 'other.internal', address: '10.9.9.9' }), /^deny/);
    assert.equal(allowed(policy('169.254.169.254'), { address: '169.254.169.254' }), true, 'the operator may allow a link-local address on purpose');
    assert.equal(allowed(policy('169.254.169.254'), { address: '169.254.169.253' }), false);
    assert.equal(allowed(policy('fe80::/10'), { address: 'fe80::1' }), true);
  });

  it('an allow rule alone restricts nothing: allowing one network does not deny the others', () => {
    const p = policy('10.1.0.0/16');
    assert.equal(allowed(p, { address: '10.2.0.1' }), true);
    assert.equal(allowed(p, { address: '169.254.169.254' }), false, 'the defaults still apply');
  });

  it('the reason names the address and the rule that decided, never an allow rule', () => {
    assert.match(verdict(policy('', '10.0.0.0/8'), { host: 'x.example', address: '10.2.3.4' }), /10\.2\.3\.4.*TEAMSTAGE_TASK_URL_DENY/);
    assert.match(verdict(policy('', 'x.example'), { host: 'x.example', address: '10.2.3.4' }), /x\.example.*TEAMSTAGE_TASK_URL_DENY/);
    assert.match(verdict(policy(), { address: '169.254.169.254' }), /169\.254\.169\.254.*link-local.*TEAMSTAGE_TASK_URL_ALLOW/);
    assert.match(verdict(policy(), { address: '127.0.0.1', port: 8080 }, { listeners: [{ address: '127.0.0.1', port: 8080 }], localAddresses: [] }), /127\.0\.0\.1.*8080/);
  });
});
