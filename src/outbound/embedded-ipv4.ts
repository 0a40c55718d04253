import { isIP, isIPv4 } from 'node:net';

/**
 * The IPv4 address an IPv6 address carries inside it, for the forms that deliver to it, so the
 * destination policy judges `64:ff9b::a9fe:a9fe` as it judges 169.254.169.254:
 * - IPv4-mapped `::ffff:a.b.c.d` (::ffff:0:0/96);
 * - IPv4-compatible `::a.b.c.d` (::/96, deprecated but still routed by some stacks), but not `::` and `::1`,
 *   which are IPv6's own unspecified and loopback addresses;
 * - NAT64 with the well-known prefix `64:ff9b::/96` (RFC 6052) and the local-use prefix `64:ff9b:1::/48`
 *   (RFC 8215, with the /96 layout its gateways use);
 * - 6to4 `2002:AABB:CCDD::/16` (RFC 3056): the gateway is AA.BB.CC.DD;
 * - Teredo `2001:0::/32` (RFC 4380): the client's address, stored inverted in the last 32 bits.
 * Written here because node:net's BlockList only knows the mapped form.
 */
export function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const v4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const [g0, g1, g2, , , g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (zeros(0, 5) && g5 === 0xffff) return v4(g6, g7);
  if (zeros(0, 6) && (g6 !== 0 || g7 > 1)) return v4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && (zeros(2, 6) || (g2 === 1 && zeros(3, 6)))) return v4(g6, g7);
  if (g0 === 0x2002) return v4(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return v4(g6 ^ 0xffff, g7 ^ 0xffff);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a zone id ignored), or undefined for anything else. */
export function ipv6Groups(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  const expand = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!isIPv4(group)) return [Number.parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = bare.split('::') as [string, string | undefined];
  const left = expand(head);
  if (tail === undefined) return left;
  const right = expand(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
