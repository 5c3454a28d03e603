import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges a fetch must never reach: everything in the IANA special-purpose registry that is not
 * globally reachable, plus the cloud metadata address (inside link-local) and the CGNAT range
 * (where Alibaba's metadata service lives).
 */
const NON_PUBLIC_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 connects to the local host on Linux
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

/**
 * IPv6 is checked the other way round: only global unicast (2000::/3) can be public, which by
 * itself refuses ::, ::1, IPv4-compatible ::/96, ULA fc00::/7 (and metadata fd00:ec2::254),
 * site-local fec0::/10, link-local fe80::/10 and multicast ff00::/8. These are the non-public
 * parts of 2000::/3.
 */
const NON_PUBLIC_IPV6_UNICAST: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

function blockListOf(ranges: ReadonlyArray<readonly [string, number]>, type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

const nonPublicIpv4 = blockListOf(NON_PUBLIC_IPV4, 'ipv4');
const globalUnicastIpv6 = blockListOf([['2000::', 3]], 'ipv6');
const nonPublicIpv6Unicast = blockListOf(NON_PUBLIC_IPV6_UNICAST, 'ipv6');

/**
 * True when `ip` (a bare IPv4 or IPv6 literal, no brackets) is an address a fetch of a stranger's
 * URL may connect to. Anything that is not a valid literal is not public.
 */
export function isPublicAddress(ip: string): boolean {
  // A zone id (fe80::1%eth0) only ever qualifies a link-local address.
  if (ip.includes('%')) return false;
  switch (isIP(ip)) {
    case 4:
      return !nonPublicIpv4.check(ip, 'ipv4');
    case 6:
      return isPublicIpv6(ipv6Bytes(ip));
    default:
      return false;
  }
}

function isPublicIpv6(bytes: Uint8Array): boolean {
  const tunnelled = embeddedIpv4(bytes);
  // An address that carries an IPv4 address reaches that IPv4 host (dual-stack socket, NAT64
  // gateway, 6to4 relay), so the IPv4 address is what must be public.
  if (tunnelled) return tunnelled.every((ipv4) => !nonPublicIpv4.check(ipv4, 'ipv4'));
  const text = hextets(bytes);
  return globalUnicastIpv6.check(text, 'ipv6') && !nonPublicIpv6Unicast.check(text, 'ipv6');
}

/** The IPv4 addresses an IPv6 address translates or tunnels to, or undefined when it carries none. */
function embeddedIpv4(bytes: Uint8Array): string[] | undefined {
  const word = (index: number) => (bytes[index] << 8) | bytes[index + 1];
  const zeroUpTo = (end: number) => bytes.subarray(0, end).every((byte) => byte === 0);
  if (zeroUpTo(10) && word(10) === 0xffff) return [dottedQuad(bytes, [12, 13, 14, 15])]; // ::ffff:0:0/96
  if (word(0) === 0x64 && word(2) === 0xff9b) {
    if (bytes.subarray(4, 12).every((byte) => byte === 0)) return [dottedQuad(bytes, [12, 13, 14, 15])]; // 64:ff9b::/96
    // Local-use NAT64 (RFC 8215) lets the operator pick the prefix length, so every RFC 6052
    // position the IPv4 address could sit at must be public.
    if (word(4) === 0x0001) return [48, 56, 64, 96].map((prefix) => dottedQuad(bytes, rfc6052Positions(prefix)));
  }
  if (word(0) === 0x2002) return [dottedQuad(bytes, [2, 3, 4, 5])]; // 6to4 2002::/16
  return undefined;
}

/** Byte positions of an IPv4 address behind a NAT64 prefix of `prefixLength` bits (bits 64–71 are skipped). */
function rfc6052Positions(prefixLength: number): number[] {
  const positions: number[] = [];
  for (let index = prefixLength / 8; positions.length < 4; index++) if (index !== 8) positions.push(index);
  return positions;
}

function dottedQuad(bytes: Uint8Array, positions: number[]): string {
  return positions.map((index) => bytes[index]).join('.');
}

function hextets(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
  return groups.join(':');
}

/** The 16 bytes of a valid IPv6 literal (validated by the caller with `isIP`). */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const groups =
    rest === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}
