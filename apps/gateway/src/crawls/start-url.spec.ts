import { createHash } from 'node:crypto';
import { EgressPolicy, normalizeUrl, urlKey } from '@trawl/egress';
import type { GatewayConfig } from '../config';
import { PublicHostCheck } from '../site-urls/site-url';
import { CrawlErrorCode } from './crawls.errors';
import { parseStartUrl, StartUrlCheck } from './start-url';

const invalidStartUrl = expect.objectContaining({ code: CrawlErrorCode.InvalidStartUrl });

describe(parseStartUrl.name, () => {
  it('keeps the URL as given (query string included) and derives key and scope', () => {
    const parsed = parseStartUrl('https://www.Shop.example.co.uk/list?page=2&utm_source=x');
    expect(parsed.href).toBe('https://www.shop.example.co.uk/list?page=2&utm_source=x');
    expect(parsed.scopeDomain).toBe('example.co.uk');
    const key = urlKey(normalizeUrl(parsed.href) as string);
    expect(parsed.urlKey.equals(createHash('md5').update(key).digest())).toBe(true);
  });

  it.each([
    ['an IPv4 host', 'http://127.0.0.1/'],
    ['a public IPv4 host', 'http://8.8.8.8/'],
    ['an IPv6 host', 'http://[::1]/'],
    ['an integer IPv4 host', 'http://2130706433/'],
    ['a hex IPv4 host', 'http://0x7f.1/'],
    ['another scheme', 'ftp://shop.test/'],
    ['a relative URL', '/just/a/path'],
    ['no URL at all', 'not a url'],
    ['an empty string', ''],
    ['credentials', 'http://user:pw@shop.test/'],
    ['a URL over 2,048 characters', `http://shop.test/${'a'.repeat(2_048)}`],
  ])('refuses %s', (_what, url) => {
    expect(() => parseStartUrl(url)).toThrow(invalidStartUrl);
  });
});

describe(StartUrlCheck.name, () => {
  const config = { START_URL_RESOLVE_TIMEOUT_MS: 50 } as GatewayConfig;
  const check = (lookup: (host: string) => Promise<{ address: string; family: 4 | 6 }[]>) =>
    new StartUrlCheck(new PublicHostCheck(new EgressPolicy({ hostMap: new Map([['shop.test', '127.0.0.1']]), lookup }), config));

  describe('check', () => {
    it('accepts a host of the host map even though it maps to loopback', async () => {
      const result = await check(() => Promise.reject(new Error('no DNS in this test'))).check('http://shop.test:9/a?b=1');
      expect(result.href).toBe('http://shop.test:9/a?b=1');
    });

    it('refuses a name that resolves to a private address', async () => {
      await expect(check(async () => [{ address: '10.0.0.5', family: 4 }]).check('http://intranet.example/')).rejects.toEqual(
        invalidStartUrl,
      );
    });

    it('accepts a name that does not resolve: the crawl will fail seed_unreachable', async () => {
      const result = await check(() => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }))).check(
        'https://gone.example/',
      );
      expect(result.scopeDomain).toBe('gone.example');
    });

    it('accepts a name whose resolution does not answer in time', async () => {
      const result = await check(() => new Promise(() => undefined)).check('https://slow.example/');
      expect(result.href).toBe('https://slow.example/');
    });
  });
});
