import { testIdentity } from './identity.test-support';
import { navigationHeaders, NAVIGATION_ACCEPT } from './navigation-headers';

/** `[name, value, …]` as pairs. */
function pairs(wire: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i < wire.length; i += 2) result.push([wire[i], wire[i + 1]]);
  return result;
}

describe(navigationHeaders.name, () => {
  const identity = testIdentity();

  it("sends Chrome's https navigation in Chrome's order over HTTP/2, client hints first and priority last", () => {
    const sent = pairs(navigationHeaders(identity, new URL('https://shop.test/a'), {}, 'h2'));
    expect(sent.map(([name]) => name)).toEqual([
      'sec-ch-ua',
      'sec-ch-ua-mobile',
      'sec-ch-ua-platform',
      'upgrade-insecure-requests',
      'user-agent',
      'accept',
      'sec-fetch-site',
      'sec-fetch-mode',
      'sec-fetch-user',
      'sec-fetch-dest',
      'accept-encoding',
      'accept-language',
      'priority',
    ]);
    expect(Object.fromEntries(sent)).toMatchObject({
      'sec-ch-ua': '"Not:A-Brand";v="8", "Chromium";v="156", "Google Chrome";v="156"',
      'sec-ch-ua-platform': `"${identity.userAgentData.platform}"`,
      'user-agent': identity.userAgent,
      accept: NAVIGATION_ACCEPT,
      'accept-encoding': 'gzip, deflate, br, zstd',
      'accept-language': 'en-US,en;q=0.9',
    });
  });

  it('sends no client hints, no sec-fetch-* and no br to a plain-HTTP origin, title-cased for HTTP/1.1', () => {
    const sent = pairs(navigationHeaders(identity, new URL('http://shop.test/a'), {}, 'http/1.1'));
    expect(sent).toEqual([
      ['Upgrade-Insecure-Requests', '1'],
      ['User-Agent', identity.userAgent],
      ['Accept', NAVIGATION_ACCEPT],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept-Language', 'en-US,en;q=0.9'],
    ]);
  });

  it('keeps client hints lower-case over HTTP/1.1, as Chrome does', () => {
    const names = pairs(navigationHeaders(identity, new URL('https://shop.test/'), {}, 'http/1.1')).map(([name]) => name);
    expect(names.slice(0, 4)).toEqual(['sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'Upgrade-Insecure-Requests']);
    expect(names).not.toContain('priority');
  });

  it("puts a caller's header in the place of Chrome's of that name, and its own ones after Chrome's, the cookie last", () => {
    const caller = { 'user-agent': 'my-bot/1.0', 'x-token': 't', cookie: 'a=1', referer: 'https://shop.test/' };
    const sent = pairs(navigationHeaders(identity, new URL('http://shop.test/'), caller, 'http/1.1'));
    expect(sent).toEqual([
      ['Upgrade-Insecure-Requests', '1'],
      ['User-Agent', 'my-bot/1.0'],
      ['Accept', NAVIGATION_ACCEPT],
      ['Referer', 'https://shop.test/'],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept-Language', 'en-US,en;q=0.9'],
      ['X-Token', 't'],
      ['Cookie', 'a=1'],
    ]);
  });

  it("offers only what the transport decodes when it is less than Chrome's", () => {
    const sent = Object.fromEntries(pairs(navigationHeaders(identity, new URL('https://shop.test/'), {}, 'h2', 'gzip, deflate, br')));
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
  });

  it("writes a proxy country's languages", () => {
    const german = testIdentity({ country: 'DE' });
    const sent = Object.fromEntries(pairs(navigationHeaders(german, new URL('https://shop.test/'), {}, 'h2')));
    expect(sent['accept-language']).toBe('de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7');
  });
});
