import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DestinationPolicy, parseDestinationRules, type Listener } from '../../src/outbound/destination-policy.js';
import { embeddedIpv4, ipv6Groups } from '../../src/outbound/embedded-ipv4.js';

const hex = (ipv4: string) => {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};
const inverted = (ipv4: string) => ipv4.split('.').map((octet) => 255 - Number(octet)).join('.');

/** Every IPv6 spelling of one IPv4 address that delivers to it. */
function embeddings(ipv4: string): string[] {
  const [high, low] = hex(ipv4);
  const [ih, il] = hex(inverted(ipv4));
  return [
    `::ffff:${ipv4}`, `::ffff:${high}:${low}`, `0:0:0:0:0:ffff:${high}:${low}`,
    `::${ipv4}`, `::${high}:${low}`,
    `64:ff9b::${ipv4}`, `64:ff9b::${high}:${low}`, `64:FF9B:0:0:0:0:${high}:${low}`, `64:ff9b:1::${high}:${low}`,
    `2002:${high}:${low}::`, `2002:${high}:${low}:1::5`,
    `2001:0:4136:e378:8000:63bf:${ih}:${il}`,
  ];
}

describe('IPv4 addresses inside IPv6 addresses', () => {
  it('reads the eight groups of any IPv6 spelling', () => {
    assert.deepEqual(ipv6Groups('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ipv6Groups('fe80::1%eth0'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(ipv6Groups('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    assert.deepEqual(ipv6Groups('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(ipv6Groups('1.2.3.4'), undefined);
    assert.equal(ipv6Groups('example.com'), undefined);
  });

  it('finds the IPv4 address in the mapped, compatible, NAT64, 6to4 and Teredo forms', () => {
    for (const ipv4 of ['169.254.169.254', '127.0.0.1', '10.1.2.3', '0.0.0.0', '255.255.255.255']) {
      for (const address of embeddings(ipv4)) {
        // ::0.0.0.0 is ::, IPv6's own unspecified address, not a compatible form.
        if (ipv4 === '0.0.0.0' && /^::(0\.0\.0\.0|0:0)$/.test(address)) continue;
        assert.equal(embeddedIpv4(address), ipv4, address);
      }
    }
  });

  it('finds none in other IPv6 addresses, nor in ::, ::1 or an IPv4 address', () => {
    for (const address of ['::', '::1', '2001:db8::7', 'fe80::1', 'fd00::a9fe:a9fe', '64:ff9c::a9fe:a9fe', '2003::1', '169.254.169.254']) {
      assert.equal(embeddedIpv4(address), undefined, address);
    }
  });
});

describe('run task destination policy: embedded IPv4 addresses (issue 25 item 8)', () => {
  const policy = (allow = '', deny = '') => new DestinationPolicy({ allow: parseDestinationRules(allow), deny: parseDestinationRules(deny) });
  const server = { listeners: [{ address: '127.0.0.1', port: 8080 }] as Listener[], localAddresses: [] as string[] };
  const verdict = (p: DestinationPolicy, address: string, port = 443) => {
    const decided = p.decide({ host: address, address, port }, server);
    return decided.allowed ? 'allow' : `deny: ${decided.reason}`;
  };

  it('the cloud metadata service and link-local addresses are denied in NAT64, 6to4, compatible and Teredo form', () => {
    for (const address of embeddings('169.254.169.254')) assert.match(verdict(policy(), address), /^deny: .*link-local/, address);
  });

  it('a deny rule on loopback (and any IPv4 subnet) catches every embedding; own listener too', () => {
    const denyLoopback = policy('', '127.0.0.0/8,10.0.0.0/8');
    for (const ipv4 of ['127.0.0.1', '10.9.8.7']) {
      for (const address of embeddings(ipv4)) assert.match(verdict(denyLoopback, address), /^deny: .*TEAMSTAGE_TASK_URL_DENY/, address);
    }
    for (const address of embeddings('127.0.0.1')) assert.match(verdict(policy('0.0.0.0/0,::/0'), address, 8080), /^deny: .*own listener/, address);
  });

  it('every embedding of an IPv4 address gets at least the IPv4 address verdict (property)', () => {
    const policies = [policy(), policy('10.1.0.0/16', '10.0.0.0/8,192.168.0.0/16'), policy('', '0.0.0.0/0')];
    fc.assert(
      fc.property(fc.ipV4(), fc.constantFrom(443, 8080), fc.constantFrom(...policies), (ipv4, port, p) => {
        if (verdict(p, ipv4, port) === 'allow') return;
        for (const address of embeddings(ipv4)) {
          if (embeddedIpv4(address) !== ipv4) continue; // ::0.0.0.0 and ::0.0.0.1 are :: and ::1
          assert.notEqual(verdict(p, address, port), 'allow', `${address} (${ipv4})`);
        }
      }),
    );
  });

  it('an allow rule for the IPv4 address lets its embeddings through; ::1 stays the operator\'s to deny', () => {
    const allowMetadata = policy('169.254.169.254');
    for (const address of embeddings('169.254.169.254')) assert.equal(verdict(allowMetadata, address), 'allow', address);
    assert.equal(verdict(policy(), '::1'), 'allow');
    assert.equal(verdict(policy(), '2001:db8::7'), 'allow');
  });
});
