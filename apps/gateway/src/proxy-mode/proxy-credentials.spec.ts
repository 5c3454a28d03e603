import { FetchError } from '../fetch/fetch.errors';
import { parseProxyAuthorization, proxiedFetchQuery } from './proxy-credentials';
import { ProxyModeError } from './proxy-mode.errors';

const KEY = '0123456789abcdef0123456789abcdef01234567';
const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('proxy credentials', () => {
  describe(parseProxyAuthorization.name, () => {
    it('reads the key and the &-joined options of the password', () => {
      expect(parseProxyAuthorization(basic(`${KEY}:js_render=true&premium_proxy=true`))).toEqual({
        apiKey: KEY,
        params: { js_render: 'true', premium_proxy: 'true' },
      });
    });

    it('accepts an empty password, any case of the scheme and missing padding', () => {
      expect(parseProxyAuthorization(basic(`${KEY}:`))).toEqual({ apiKey: KEY, params: {} });
      const unpadded = Buffer.from(`${KEY}:a=1`).toString('base64').replace(/=+$/, '');
      expect(parseProxyAuthorization(`bAsIc ${unpadded}`).params).toEqual({ a: '1' });
    });

    it('decodes percent-escapes of values and keeps repeated names as a list', () => {
      const css = JSON.stringify({ title: 'h1' });
      const parsed = parseProxyAuthorization(basic(`${KEY}:css_extractor=${encodeURIComponent(css)}&outputs=a&outputs=b`));
      expect(parsed.params).toEqual({ css_extractor: css, outputs: ['a', 'b'] });
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['repeated', [basic(`${KEY}:`), basic(`${KEY}:`)]],
      ['not Basic', `Bearer ${KEY}`],
      ['Basic without credentials', 'Basic'],
      ['not base64', 'Basic %%%notbase64'],
      ['base64 of a wrong length', 'Basic abcde'],
      ['without a colon', basic(KEY)],
      ['a key of the wrong format', basic('not-a-key:js_render=true')],
      ['an upper-case key', basic(`${KEY.toUpperCase()}:`)],
      ['an empty key', basic(':js_render=true')],
    ])('refuses %s with AUTH007', (_what, header) => {
      let thrown: unknown;
      try {
        parseProxyAuthorization(header);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ProxyModeError);
      expect(thrown).toMatchObject({ code: 'AUTH007' });
      // The detail never echoes what was sent.
      expect((thrown as ProxyModeError).detail).not.toContain(KEY);
    });
  });

  describe(proxiedFetchQuery.name, () => {
    it('sets the URL and forwards the client headers unless told otherwise', () => {
      expect(proxiedFetchQuery({ js_render: 'true' }, 'http://shop.test/a')).toEqual({
        custom_headers: 'true',
        js_render: 'true',
        url: 'http://shop.test/a',
      });
      expect(proxiedFetchQuery({ custom_headers: 'false' }, 'http://shop.test/')).toMatchObject({ custom_headers: 'false' });
    });

    it.each(['url', 'apikey'])('refuses `%s` in the password with REQS004 naming it', (name) => {
      expect(() => proxiedFetchQuery({ [name]: 'x' }, 'http://shop.test/')).toThrow(FetchError);
      expect(() => proxiedFetchQuery({ [name]: 'x' }, 'http://shop.test/')).toThrow(
        expect.objectContaining({ code: 'REQS004', extensions: { parameter: name } }),
      );
    });
  });
});
