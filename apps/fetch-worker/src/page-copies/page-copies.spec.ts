import type { FetchRequestV1 } from '@trawl/contracts';
import { Tier } from '@trawl/billing';
import { copyKeyOf } from './copy-key';
import { decodePageCopy, encodePageCopy } from './page-copy-codec';
import type { TargetPage } from '../target-fetch/fetch-engine';

const REQUEST: Pick<FetchRequestV1, 'method' | 'url' | 'headers' | 'options'> = {
  method: 'GET',
  url: 'https://shop.example/a',
  headers: { 'accept-language': 'de' },
  options: { js_render: true, premium_proxy: false, json_response: false, original_status: false, wait: 500, max_age: 60 },
};

describe(copyKeyOf.name, () => {
  it('is the same for the same request whatever the order of its options and headers, and whatever max_age', () => {
    const reordered = {
      ...REQUEST,
      options: { max_age: 3600, wait: 500, original_status: false, json_response: false, premium_proxy: false, js_render: true },
    };
    expect(copyKeyOf(reordered)).toBe(copyKeyOf(REQUEST));
    expect(copyKeyOf(REQUEST)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('differs when the URL, a header or any other option differs', () => {
    const key = copyKeyOf(REQUEST);
    expect(copyKeyOf({ ...REQUEST, url: 'https://shop.example/b' })).not.toBe(key);
    expect(copyKeyOf({ ...REQUEST, headers: { 'accept-language': 'fr' } })).not.toBe(key);
    expect(copyKeyOf({ ...REQUEST, options: { ...REQUEST.options, wait: 501 } })).not.toBe(key);
    expect(copyKeyOf({ ...REQUEST, options: { ...REQUEST.options, css_extractor: { t: 'h1' } } })).not.toBe(key);
  });

  it("keeps a crawl's copies apart from the Fetch API's (a crawl reads only HTML bodies)", () => {
    expect(copyKeyOf(REQUEST, 'crawl')).not.toBe(copyKeyOf(REQUEST, 'fetch'));
    expect(copyKeyOf(REQUEST)).toBe(copyKeyOf(REQUEST, 'fetch'));
  });
});

describe('page copy encoding', () => {
  it('gives back every field and every byte of a rendered page', () => {
    const page: TargetPage = {
      tier: Tier.JsRender,
      status: 200,
      finalUrl: 'https://shop.example/a?x=1',
      headers: { 'content-type': 'text/html', 'set-cookie': ['a=1', 'b=2'] },
      contentType: 'text/html',
      body: Buffer.from('<html>é</html>'),
      html: '<html><body>é rendered</body></html>',
      xhr: [{ url: 'https://shop.example/api', body: '{}', status_code: 200, method: 'GET', headers: {}, request_headers: {} }],
      screenshot: { data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), type: 'png', width: 1920, height: 1080 },
      pdf: Buffer.from('%PDF-1.7'),
    };
    expect(decodePageCopy(encodePageCopy(page))).toEqual(page);
    const plain: TargetPage = { tier: Tier.Basic, status: 301, finalUrl: 'https://shop.example/', headers: {}, body: Buffer.alloc(0) };
    expect(decodePageCopy(encodePageCopy(plain))).toEqual(plain);
  });

  it('refuses bytes cut short', () => {
    const bytes = encodePageCopy({
      tier: Tier.Basic,
      status: 200,
      finalUrl: 'https://a.example/',
      headers: {},
      body: Buffer.alloc(100, 1),
    });
    expect(() => decodePageCopy(bytes.subarray(0, bytes.length - 1))).toThrow('truncated');
  });
});
