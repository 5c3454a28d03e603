import { EgressPolicy } from './egress-policy';

describe(EgressPolicy.name, () => {
  const policy = new EgressPolicy();

  describe('isPublicAddress', () => {
    it.each([
      ['0.0.0.0', 'this network'],
      ['0.1.2.3', 'this network'],
      ['10.0.0.1', 'private 10/8'],
      ['10.255.255.255', 'private 10/8'],
      ['100.64.0.1', 'CGNAT'],
      ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
      ['100.127.255.255', 'CGNAT'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['169.254.0.1', 'link-local'],
      ['169.254.169.254', 'metadata'],
      ['172.16.0.1', 'private 172.16/12'],
      ['172.31.255.255', 'private 172.16/12'],
      ['192.0.0.8', 'IETF protocol assignments'],
      ['192.0.2.1', 'documentation TEST-NET-1'],
      ['192.88.99.1', '6to4 relay anycast'],
      ['192.168.1.1', 'private 192.168/16'],
      ['198.18.0.1', 'benchmarking'],
      ['198.19.255.255', 'benchmarking'],
      ['198.51.100.7', 'documentation TEST-NET-2'],
      ['203.0.113.9', 'documentation TEST-NET-3'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'broadcast'],
    ])('refuses IPv4 %s (%s)', (ip) => {
      expect(policy.isPublicAddress(ip)).toBe(false);
    });

    it.each([
      '8.8.8.8',
      '1.1.1.1',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
    ])('allows public IPv4 %s', (ip) => {
      expect(policy.isPublicAddress(ip)).toBe(true);
    });

    it.each([
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback, uncompressed'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
      ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, uncompressed'],
      ['::ffff:10.0.0.1', 'IPv4-mapped private'],
      ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
      ['::ffff:0.0.0.0', 'IPv4-mapped this-network'],
      ['::127.0.0.1', 'IPv4-compatible loopback'],
      ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
      ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
      ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
      ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
      ['64:ff9b:1::a00:1', 'local-use NAT64 of 10.0.0.1 (/96 layout)'],
      ['64:ff9b:1:7f00:0:100::', 'local-use NAT64 of 127.0.0.1 (/48 layout)'],
      ['2002:c0a8:101::', '6to4 of 192.168.1.1'],
      ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
      ['2001::1', 'Teredo'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
      ['2001:2::1', 'benchmarking'],
      ['2001:db8::1', 'documentation'],
      ['3fff::1', 'documentation'],
      ['fc00::1', 'unique local'],
      ['fd12:3456:789a::1', 'unique local'],
      ['fd00:ec2::254', 'AWS metadata'],
      ['fe80::1', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['fe80::1%lo', 'link-local with zone'],
      ['fec0::1', 'site-local'],
      ['ff02::1', 'multicast'],
      ['ff05::2', 'multicast'],
      ['100::1', 'discard-only'],
      ['4000::1', 'outside global unicast'],
    ])('refuses IPv6 %s (%s)', (ip) => {
      expect(policy.isPublicAddress(ip)).toBe(false);
    });

    it.each([
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:81c::200e',
      '2001:200::1',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ])('allows public IPv6 %s', (ip) => {
      expect(policy.isPublicAddress(ip)).toBe(true);
    });

    it.each(['', 'localhost', 'example.com', '[::1]', '127.1', '0177.0.0.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '::ffff:999.0.0.1'])(
      'refuses %p, which is not an IP literal',
      (text) => {
        expect(policy.isPublicAddress(text)).toBe(false);
      },
    );
  });
});
