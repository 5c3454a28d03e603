import { EgressPolicy, type ResolvedAddress } from './egress-policy';
import { EgressError, EgressErrorCode } from './errors';
import { parseHostMap } from './host-map';

function policyAnswering(answers: Record<string, ResolvedAddress[]>) {
  const lookup = jest.fn(async (hostname: string) => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  });
  const policy = new EgressPolicy({ lookup, hostMap: parseHostMap('shop.test=127.0.0.1,hooks.test=::1') });
  return { policy, lookup };
}

async function egressErrorOf(promise: Promise<unknown>): Promise<EgressError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

describe(EgressPolicy.name, () => {
  describe('resolve', () => {
    it('returns the first answer when every answer is public', async () => {
      const { policy } = policyAnswering({
        'example.com': [
          { address: '93.184.215.14', family: 4 },
          { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
        ],
      });
      await expect(policy.resolve('example.com')).resolves.toEqual({ address: '93.184.215.14', family: 4 });
    });

    it('refuses a name when any answer is not public (DNS rebinding)', async () => {
      const { policy } = policyAnswering({
        'rebind.example': [
          { address: '93.184.215.14', family: 4 },
          { address: '10.1.2.3', family: 4 },
        ],
      });
      const error = await egressErrorOf(policy.resolve('rebind.example'));
      expect(error.code).toBe(EgressErrorCode.BlockedAddress);
      expect(error.message).toContain('rebind.example');
      // The tenant must not learn our internal addresses from the message.
      expect(error.message).not.toContain('10.1.2.3');
    });

    it.each([
      ['an IPv4-mapped IPv6 answer', '::ffff:127.0.0.1', 6],
      ['a metadata answer', '169.254.169.254', 4],
      ['a unique-local answer', 'fd00:ec2::254', 6],
    ] as const)('refuses a name with %s', async (_case, address, family) => {
      const { policy } = policyAnswering({ 'evil.example': [{ address, family }] });
      expect((await egressErrorOf(policy.resolve('evil.example'))).code).toBe(EgressErrorCode.BlockedAddress);
    });

    it('fails with DnsFailure when the name does not resolve', async () => {
      const { policy } = policyAnswering({});
      const error = await egressErrorOf(policy.resolve('nonexistent.invalid'));
      expect(error.code).toBe(EgressErrorCode.DnsFailure);
      expect(error.cause).toMatchObject({ code: 'ENOTFOUND' });
    });

    it('fails with DnsFailure when the name has no answers', async () => {
      const { policy } = policyAnswering({ 'empty.example': [] });
      expect((await egressErrorOf(policy.resolve('empty.example'))).code).toBe(EgressErrorCode.DnsFailure);
    });

    it('answers a host map name with its mapped address without asking DNS, whatever its case', async () => {
      const { policy, lookup } = policyAnswering({});
      await expect(policy.resolve('SHOP.test')).resolves.toEqual({ address: '127.0.0.1', family: 4 });
      await expect(policy.resolve('hooks.test')).resolves.toEqual({ address: '::1', family: 6 });
      expect(lookup).not.toHaveBeenCalled();
    });

    it('exempts only the exact host map names, not their subdomains nor their addresses', async () => {
      const { policy, lookup } = policyAnswering({ 'api.shop.test': [{ address: '127.0.0.1', family: 4 }] });
      expect((await egressErrorOf(policy.resolve('api.shop.test'))).code).toBe(EgressErrorCode.BlockedAddress);
      expect(lookup).toHaveBeenCalledWith('api.shop.test');
      expect((await egressErrorOf(policy.resolve('127.0.0.1'))).code).toBe(EgressErrorCode.BlockedAddress);
      expect((await egressErrorOf(policy.resolve('[::1]'))).code).toBe(EgressErrorCode.BlockedAddress);
    });

    it('checks IP literals directly, bracketed IPv6 included, without asking DNS', async () => {
      const { policy, lookup } = policyAnswering({});
      await expect(policy.resolve('8.8.8.8')).resolves.toEqual({ address: '8.8.8.8', family: 4 });
      await expect(policy.resolve('[2606:4700:4700::1111]')).resolves.toEqual({ address: '2606:4700:4700::1111', family: 6 });
      expect((await egressErrorOf(policy.resolve('[::ffff:7f00:1]'))).code).toBe(EgressErrorCode.BlockedAddress);
      expect(lookup).not.toHaveBeenCalled();
    });
  });

  describe('assertUrlAllowed', () => {
    it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'ws://example.com/'])(
      'refuses %s with InvalidUrl',
      async (url) => {
        const { policy, lookup } = policyAnswering({ 'example.com': [{ address: '93.184.215.14', family: 4 }] });
        expect((await egressErrorOf(policy.assertUrlAllowed(new URL(url)))).code).toBe(EgressErrorCode.InvalidUrl);
        expect(lookup).not.toHaveBeenCalled();
      },
    );

    it('returns the address of an allowed http(s) URL', async () => {
      const { policy } = policyAnswering({ 'example.com': [{ address: '93.184.215.14', family: 4 }] });
      await expect(policy.assertUrlAllowed(new URL('https://example.com/a'))).resolves.toEqual({ address: '93.184.215.14', family: 4 });
    });

    // WHATWG parsing turns every numeric spelling of an IPv4 address into a dotted quad, so the
    // policy sees the loopback address however the URL writes it, and never asks DNS about it.
    it.each([
      ['http://2130706433/', '127.0.0.1'],
      ['http://0177.0.0.1/', '127.0.0.1'],
      ['http://0x7f.1/', '127.0.0.1'],
      ['http://0x7f000001/', '127.0.0.1'],
      ['http://127.1/', '127.0.0.1'],
      ['http://017700000001/', '127.0.0.1'],
      ['http://0251.0376.0251.0376/', '169.254.169.254'],
      ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
      ['http://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ])('refuses %s, which parses to %s', async (url, hostname) => {
      const { policy, lookup } = policyAnswering({});
      const parsed = new URL(url);
      expect(parsed.hostname).toBe(hostname);
      expect((await egressErrorOf(policy.assertUrlAllowed(parsed))).code).toBe(EgressErrorCode.BlockedAddress);
      expect(lookup).not.toHaveBeenCalled();
    });
  });

  describe('constructor', () => {
    it('refuses a host map entry that is not an IP address', () => {
      expect(() => new EgressPolicy({ hostMap: new Map([['shop.test', 'localhost']]) })).toThrow(/shop\.test/);
    });
  });
});
