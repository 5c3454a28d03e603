import {
  isIpLiteral,
  isSameSite,
  MAX_URL_LENGTH,
  normalizeParsedUrl,
  normalizeUrl,
  registrableDomain,
  urlKey,
  urlKeyOfNormalized,
  urlKeyOfParsed,
} from './url-normalization';

describe('url normalization', () => {
  describe(normalizeUrl.name, () => {
    it.each([
      ['HTTP://Example.COM/Path', 'http://example.com/Path'],
      ['http://example.com', 'http://example.com/'],
      ['http://example.com:80/a', 'http://example.com/a'],
      ['https://example.com:443/a', 'https://example.com/a'],
      ['http://example.com:443/a', 'http://example.com:443/a'],
      ['https://example.com:8443/a', 'https://example.com:8443/a'],
      ['https://a.com/p#section', 'https://a.com/p'],
      ['https://a.com/p?x=1#', 'https://a.com/p?x=1'],
      ['https://a.com/p?utm_source=x&id=1&UTM_Medium=y&gclid=g&fbclid=f&Utm_campaign=z&b=2', 'https://a.com/p?id=1&b=2'],
      ['https://a.com/p?utm_source=x', 'https://a.com/p'],
      ['https://a.com/p?utm%5Fsource=x&id=1', 'https://a.com/p?id=1'],
      ['https://a.com/p?GCLID=1&FBCLID=2&q=3', 'https://a.com/p?q=3'],
      ['https://a.com/p?utm=1&autm_x=2', 'https://a.com/p?utm=1&autm_x=2'],
      ['https://a.com/p?', 'https://a.com/p'],
      ['https://a.com/p#', 'https://a.com/p'],
      ['https://a.com/p?#f', 'https://a.com/p'],
      ['https://a.com/p?utm_source=x#', 'https://a.com/p'],
      ['https://a.com/p?b=2&a=1&b=3', 'https://a.com/p?b=2&a=1&b=3'],
      ['https://a.com/p?a=1&&b=2', 'https://a.com/p?a=1&b=2'],
      ['https://a.com/%7euser/%2fx/%41%2d%5F%2E%7E', 'https://a.com/~user/%2Fx/A-_.~'],
      ['https://a.com/p?q=%2b%41%3d%e2%82%ac', 'https://a.com/p?q=%2BA%3D%E2%82%AC'],
      ['https://a.com/a b', 'https://a.com/a%20b'],
      ['https://a.com/caf\u00e9', 'https://a.com/caf%C3%A9'],
      ['https://a.com/a/./b/../c', 'https://a.com/a/c'],
      ['https://a.com/a/%2e%2E/c', 'https://a.com/c'],
      ['https://www.a.com/x/', 'https://www.a.com/x/'],
      ['https://B\u00fccher.de/', 'https://xn--bcher-kva.de/'],
      ['  https://a.com/x  ', 'https://a.com/x'],
      ['https://user:pass@a.com/x', 'https://user:pass@a.com/x'],
    ])('normalises %p to %p', (input, expected) => {
      expect(normalizeUrl(input)).toBe(expected);
    });

    it.each([
      ['../x?y=1#f', 'https://a.com/dir/sub/page', 'https://a.com/dir/x?y=1'],
      ['//cdn.a.com/x', 'https://a.com/', 'https://cdn.a.com/x'],
      ['/root?utm_source=n', new URL('https://a.com/deep/page'), 'https://a.com/root'],
      ['?page=2', 'https://a.com/list?page=1', 'https://a.com/list?page=2'],
      ['#top', 'https://a.com/list?page=1#x', 'https://a.com/list?page=1'],
      ['https://other.com/', 'https://a.com/', 'https://other.com/'],
    ])('resolves %p against %p', (input, base, expected) => {
      expect(normalizeUrl(input, base)).toBe(expected);
    });

    it.each([
      ['http://2130706433/', 'http://127.0.0.1/'],
      ['http://0177.0.0.1/', 'http://127.0.0.1/'],
      ['http://0x7f.1/', 'http://127.0.0.1/'],
      ['http://127.1/', 'http://127.0.0.1/'],
      ['http://[0:0:0:0:0:ffff:7f00:1]/', 'http://[::ffff:7f00:1]/'],
    ])('canonicalises the numeric host of %p', (input, expected) => {
      expect(normalizeUrl(input)).toBe(expected);
    });

    it.each([
      'mailto:someone@a.com',
      'javascript:alert(1)',
      'ftp://a.com/file',
      'file:///etc/passwd',
      'data:text/html,hi',
      'ws://a.com/socket',
      'not a url',
      '',
      '/relative/without/base',
      'http://',
      'http://exa mple.com/',
      'http://1.2.3.4.5/',
    ])('returns null for %p', (input) => {
      expect(normalizeUrl(input)).toBeNull();
    });

    it('returns null for a relative link resolving to another scheme', () => {
      expect(normalizeUrl('javascript:void(0)', 'https://a.com/')).toBeNull();
    });

    it('accepts a URL of exactly MAX_URL_LENGTH characters', () => {
      const url = `https://a.com/${'a'.repeat(MAX_URL_LENGTH - 'https://a.com/'.length)}`;
      expect(normalizeUrl(url)).toBe(url);
    });

    it('returns null when the URL is longer than MAX_URL_LENGTH', () => {
      expect(normalizeUrl(`https://a.com/${'a'.repeat(MAX_URL_LENGTH)}`)).toBeNull();
    });

    it('returns null when only the raw input is too long', () => {
      expect(normalizeUrl(`https://a.com/p#${'f'.repeat(MAX_URL_LENGTH)}`)).toBeNull();
    });

    it('returns null when only the normalised form is too long', () => {
      const input = `https://a.com/${'\u00e9'.repeat(400)}`; // each é becomes %C3%A9
      expect(input.length).toBeLessThan(MAX_URL_LENGTH);
      expect(normalizeUrl(input)).toBeNull();
    });

    it.each(['HTTPS://WWW.A.com:443/%7Ex/../y/?utm_medium=m&q=%e2%82%ac#f', 'http://a.com/a b/?x=%41'])('is idempotent on %p', (input) => {
      const once = normalizeUrl(input)!;
      expect(normalizeUrl(once)).toBe(once);
    });
  });

  describe(urlKey.name, () => {
    it.each([
      ['http://www.a.com/x/', 'a.com/x'],
      ['https://a.com/x', 'a.com/x'],
      ['https://a.com/x/', 'a.com/x'],
      ['https://a.com/', 'a.com'],
      ['https://www.a.com/', 'a.com'],
      ['https://a.com/x/?q=1', 'a.com/x?q=1'],
      ['https://a.com:8443/x', 'a.com:8443/x'],
      ['https://www2.a.com/', 'www2.a.com'],
      ['https://a.com/x//', 'a.com/x/'],
    ])('gives %p the key %p', (url, key) => {
      expect(urlKey(url)).toBe(key);
    });

    it('gives one key to the spellings of one page', () => {
      const keys = ['http://www.a.com/x/', 'https://a.com/x', 'HTTPS://A.com:443/x/#top', 'https://a.com/x?utm_source=n'].map((input) =>
        urlKey(normalizeUrl(input)!),
      );
      expect(new Set(keys)).toEqual(new Set(['a.com/x']));
      expect(urlKey(normalizeUrl('https://a.com')!)).toBe(urlKey(normalizeUrl('https://a.com/')!));
    });

    it('keeps pages that differ by query, path case or port apart', () => {
      const keys = ['https://a.com/x?q=1', 'https://a.com/x?q=2', 'https://a.com/X', 'https://a.com:8080/x', 'https://a.com/x'].map((url) =>
        urlKey(url),
      );
      expect(new Set(keys).size).toBe(keys.length);
    });
  });

  describe(registrableDomain.name, () => {
    it.each([
      ['shop.example.co.uk', 'example.co.uk'],
      ['www.example.com', 'example.com'],
      ['EXAMPLE.com', 'example.com'],
      ['alice.github.io', 'alice.github.io'],
      ['docs.alice.github.io', 'alice.github.io'],
      ['www.shop.netlify.app', 'shop.netlify.app'],
      ['my-app.herokuapp.com', 'my-app.herokuapp.com'],
      ['github.io', 'github.io'],
      ['shop.test', 'shop.test'],
      ['api.shop.test', 'shop.test'],
      ['localhost', 'localhost'],
      ['127.0.0.1', '127.0.0.1'],
      ['[::1]', '[::1]'],
      ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ])('gives %p the registrable domain %p', (hostname, domain) => {
      expect(registrableDomain(hostname)).toBe(domain);
    });
  });

  describe(isSameSite.name, () => {
    it.each([
      ['a.com', 'a.com', true],
      ['blog.a.com', 'a.com', true],
      ['www.a.com', 'a.com', true],
      ['x.shop.test', 'shop.test', true],
      ['evil-a.com', 'a.com', false],
      ['a.com.evil.com', 'a.com', false],
      ['a.co.uk', 'b.co.uk', false],
      ['other.test', 'shop.test', false],
      ['localhost', 'localhost', true],
      ['docs.alice.github.io', 'alice.github.io', true],
      ['bob.github.io', 'alice.github.io', false],
      ['github.io', 'alice.github.io', false],
      ['bob.netlify.app', 'alice.netlify.app', false],
      // A crawl started before private suffixes counted stored the suffix: it keeps that scope.
      ['bob.github.io', 'github.io', true],
      ['github.io', 'github.io', true],
      // …but a bare suffix of the ICANN section or a name the list cannot split takes no subdomain.
      ['evil.localhost', 'localhost', false],
      ['a.co.uk', 'co.uk', false],
    ])('says %p is on site %p: %p', (hostname, domain, expected) => {
      expect(isSameSite(hostname, domain)).toBe(expected);
    });
  });

  describe(isIpLiteral.name, () => {
    it.each([
      ['127.0.0.1', true],
      ['[::1]', true],
      ['[::ffff:7f00:1]', true],
      ['::1', true],
      ['example.com', false],
      ['1.2.3.4.example.com', false],
      ['localhost', false],
      ['[example.com]', false],
    ])('says %p is an IP literal: %p', (hostname, expected) => {
      expect(isIpLiteral(hostname)).toBe(expected);
    });
  });
});

describe(urlKeyOfNormalized.name, () => {
  it('gives the key urlKey gives to every normalised URL', () => {
    const inputs = [
      'http://www.a.com/x/',
      'https://a.com',
      'https://a.com/',
      'https://www.a.com/',
      'https://a.com/x/?q=1',
      'https://a.com:8443/x',
      'https://www2.a.com/',
      'https://a.com/x//',
      'https://user:p%40ss@www.a.com/x/?q=/a/&r=@',
      'https://@a.com/x',
      'http://[::1]:8080/p/',
      'http://127.0.0.1/?',
      'https://a.com/?q=1/',
      'https://www.a.com/a/b/c/?x=%2F#frag',
      'https://xn--bcher-kva.example/%7Euser/',
      'https://a.com/a b/ü?ü=1',
      'http://www./x',
      'https://a.com/x?',
    ];
    for (const input of inputs) {
      const normalized = normalizeUrl(input);
      expect(normalized).not.toBeNull();
      expect([input, urlKeyOfNormalized(normalized!)]).toEqual([input, urlKey(normalized!)]);
    }
  });
});

describe(urlKeyOfParsed.name, () => {
  it('gives the key urlKey gives, from the URL normalised in place', () => {
    for (const raw of ['https://www.a.com/x/', 'http://a.com', 'https://a.com:8443/p?q=1&utm_source=x#f', 'https://A.com/%7euser/']) {
      const url = new URL(raw);
      const normalized = normalizeParsedUrl(url)!;
      expect(urlKeyOfParsed(url)).toBe(urlKey(normalized));
    }
  });
});
