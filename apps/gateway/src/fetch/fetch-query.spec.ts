import { BLOCKABLE_RESOURCES, OUTPUT_NAMES } from '@trawl/contracts';
import { FetchErrorCode } from './fetch.errors';
import { parseFetchQuery } from './fetch-query';

const URL_ = 'https://shop.test/items?id=1';
const parse = (query: Record<string, string | string[]>) => parseFetchQuery({ url: URL_, ...query });
const js = { js_render: 'true' };

function refusal(query: Record<string, string | string[]>, base: Record<string, string> = { url: URL_ }) {
  try {
    parseFetchQuery({ ...base, ...query });
  } catch (error) {
    return error as { code: string; detail: string; extensions: { parameter?: string } };
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe(parseFetchQuery.name, () => {
  describe('defaults', () => {
    it('reads a bare url as a basic HTML fetch', () => {
      expect(parseFetchQuery({ url: URL_, apikey: 'k' })).toEqual({
        url: URL_,
        hostname: 'shop.test',
        customHeaders: false,
        extract: false,
        options: { js_render: false, premium_proxy: false, json_response: false, original_status: false },
      });
    });
  });

  describe('url', () => {
    it.each([
      [{}, 'required'],
      [{ url: '' }, 'required'],
      [{ url: 'shop.test/x' }, 'absolute'],
      [{ url: 'ftp://shop.test/x' }, 'http or https'],
      [{ url: 'https://shop.test/a b' }, 'properly encoded'],
      [{ url: `https://shop.test/${'a'.repeat(8_200)}` }, '8,192'],
      [{ url: ['https://a.test/', 'https://b.test/'] }, 'at most once'],
    ])('refuses %j with REQS004 naming url (%s)', (query, words) => {
      const error = refusal(query, {});
      expect(error).toMatchObject({ code: FetchErrorCode.InvalidParameters, extensions: { parameter: 'url' } });
      expect(error.detail).toContain(words);
    });

    it('names the stray parameter of an unencoded target query', () => {
      // `?url=https://shop.test/?a=1&b=2` unencoded: `b` arrives as a parameter of ours.
      const error = refusal({ b: '2' });
      expect(error).toMatchObject({ code: FetchErrorCode.InvalidParameters, extensions: { parameter: 'b' } });
      expect(error.detail).toContain('URL-encode');
    });

    it('lowercases the host and gives the WHATWG href', () => {
      expect(parseFetchQuery({ url: 'HTTP://Shop.TEST' })).toMatchObject({ url: 'http://shop.test/', hostname: 'shop.test' });
    });
  });

  describe('booleans', () => {
    it.each(['js_render', 'premium_proxy', 'json_response', 'original_status', 'custom_headers', 'screenshot', 'autoparse'])(
      'accepts exactly true/false for %s',
      (name) => {
        for (const value of ['1', 'yes', 'True', '']) {
          expect(refusal({ ...js, [name]: value })).toMatchObject({ code: 'REQS004', extensions: { parameter: name } });
        }
        expect(() => parse({ ...js, [name]: 'false' })).not.toThrow();
      },
    );
  });

  describe('options that need js_render', () => {
    it.each([
      ['js_instructions', { js_instructions: '[{"click":"#a"}]' }],
      ['wait_for', { wait_for: '.ready' }],
      ['wait', { wait: '1000' }],
      ['block_resources', { block_resources: 'image' }],
      ['screenshot', { screenshot: 'true' }],
      ['screenshot', { screenshot_fullpage: 'true' }],
      ['screenshot', { screenshot_selector: '#main' }],
      ['window_width', { window_width: '1200' }],
      ['window_height', { window_height: '900' }],
      ['response_type', { response_type: 'pdf' }],
    ])('refuses %s without js_render, saying so', (parameter, query) => {
      const error = refusal(query);
      expect(error).toMatchObject({ code: 'REQS004', extensions: { parameter } });
      expect(error.detail).toContain('needs js_render=true');
      expect(() => parse({ ...js, ...query })).not.toThrow();
    });

    it('lets json_response go without js_render (html with an empty xhr list)', () => {
      expect(parse({ json_response: 'true' }).options.json_response).toBe(true);
    });

    it('lets markdown and plaintext go without js_render', () => {
      expect(parse({ response_type: 'markdown' }).options.response_type).toBe('markdown');
      expect(parse({ response_type: 'plaintext' }).options.response_type).toBe('plaintext');
    });
  });

  describe('values', () => {
    it.each([
      ['wait', '30001'],
      ['wait', '-1'],
      ['wait', '1.5'],
      ['session_id', '100000'],
      ['session_id', '-1'],
      ['session_id', 'abc'],
      ['window_width', '99'],
      ['window_height', '10001'],
      ['screenshot_quality', '0'],
      ['screenshot_quality', '101'],
      ['device', 'tablet'],
      ['mode', 'fast'],
      ['response_type', 'html'],
      ['screenshot_format', 'gif'],
      ['proxy_country', 'usa'],
      ['extract', 'manual'],
      ['outputs', 'emails,faxes'],
      ['block_resources', 'image,fonts'],
      ['allowed_status_codes', '404,abc'],
      ['allowed_status_codes', '99'],
      ['js_instructions', 'not json'],
      ['js_instructions', '[{"click":"#a","wait":1}]'],
      ['js_instructions', '[{"teleport":"#a"}]'],
      ['js_instructions', '{"click":"#a"}'],
      ['wait_for', ''],
      ['wait_for', '  '],
      ['js_instructions', '[{"click":""}]'],
    ])('refuses %s=%s with REQS004 naming it', (parameter, value) => {
      const extra: Record<string, string> = { ...js, premium_proxy: 'true' };
      if (parameter === 'screenshot_quality') Object.assign(extra, { screenshot: 'true', screenshot_format: 'jpeg' });
      if (parameter === 'mode') {
        delete extra.js_render;
        delete extra.premium_proxy;
      }
      const error = refusal({ ...extra, [parameter]: value });
      expect(error).toMatchObject({ code: 'REQS004', extensions: { parameter } });
      expect(error.detail).toContain(parameter);
    });

    it('reads wait up to 30,000 ms and session_id 0 to 99,999', () => {
      expect(parse({ ...js, wait: '30000' }).options.wait).toBe(30_000);
      expect(parse({ session_id: '0' }).options.session_id).toBe(0);
      expect(parse({ session_id: '99999' }).options.session_id).toBe(99_999);
    });

    it('reads lists comma-separated, `*` for every output and `none` for no blocking', () => {
      expect(parse({ outputs: 'emails, links' }).options.outputs).toEqual(['emails', 'links']);
      expect(parse({ outputs: '*' }).options.outputs).toEqual([...OUTPUT_NAMES]);
      expect(parse({ ...js, block_resources: 'image,font' }).options.block_resources).toEqual(['image', 'font']);
      expect(parse({ ...js, block_resources: 'none' }).options.block_resources).toBeUndefined();
      expect(BLOCKABLE_RESOURCES).toContain('stylesheet');
      expect(parse({ allowed_status_codes: '404,410,404' }).options.allowed_status_codes).toEqual([404, 410]);
    });

    it('reads js_instructions as URL-decoded JSON, in order', () => {
      const steps = [{ click: '#more' }, { wait: 500 }, { fill: ['#q', 'shoes'] }, { wait_event: 'networkidle' }];
      expect(parse({ ...js, js_instructions: JSON.stringify(steps) }).options.js_instructions).toEqual(steps);
    });

    it('lowercases proxy_country', () => {
      expect(parse({ premium_proxy: 'true', proxy_country: 'US' }).options.proxy_country).toBe('us');
    });
  });

  describe('css_extractor', () => {
    it('reads a JSON object of names to selectors', () => {
      expect(parse({ css_extractor: '{"title":"h1","links":"a @href"}' }).options.css_extractor).toEqual({
        title: 'h1',
        links: 'a @href',
      });
    });

    it.each(['not json', '[]', '"h1"', '{}', '{"title":""}', '{"title":3}', '{"title":"@href"}'])('refuses %s with RESP004', (value) => {
      expect(refusal({ css_extractor: value })).toMatchObject({
        code: FetchErrorCode.InvalidCssExtractor,
        extensions: { parameter: 'css_extractor' },
      });
    });
  });

  describe('screenshot', () => {
    it('builds viewport, full-page and selector screenshots with their format', () => {
      expect(parse({ ...js, screenshot: 'true' }).options.screenshot).toEqual({ fullpage: false, format: 'png' });
      expect(parse({ ...js, screenshot_fullpage: 'true', screenshot_format: 'jpeg', screenshot_quality: '70' }).options.screenshot).toEqual(
        {
          fullpage: true,
          format: 'jpeg',
          quality: 70,
        },
      );
      expect(parse({ ...js, screenshot_selector: '#main' }).options.screenshot).toEqual({
        fullpage: false,
        format: 'png',
        selector: '#main',
      });
    });

    it.each([
      ['screenshot_format', { screenshot_format: 'png' }],
      ['screenshot_quality', { screenshot_quality: '50' }],
      ['screenshot_quality', { screenshot: 'true', screenshot_quality: '50' }],
      ['screenshot_selector', { screenshot_fullpage: 'true', screenshot_selector: '#a' }],
    ])('refuses a senseless %s', (parameter, query) => {
      expect(refusal({ ...js, ...query })).toMatchObject({ code: 'REQS004', extensions: { parameter } });
    });
  });

  describe('combinations', () => {
    it.each([
      ['proxy_country', { proxy_country: 'us' }, 'needs premium_proxy=true'],
      ['mode', { mode: 'auto', js_render: 'true' }, 'js_render'],
      ['mode', { mode: 'auto', premium_proxy: 'true' }, 'premium_proxy'],
      ['css_extractor', { response_type: 'markdown', css_extractor: '{"a":"h1"}' }, 'response_type'],
      ['outputs', { response_type: 'plaintext', outputs: 'emails' }, 'response_type'],
      ['screenshot', { ...js, response_type: 'markdown', screenshot: 'true' }, 'response_type'],
      ['json_response', { ...js, response_type: 'markdown', json_response: 'true' }, 'response_type'],
      ['outputs', { css_extractor: '{"a":"h1"}', outputs: 'emails' }, 'css_extractor'],
      ['css_extractor', { ...js, json_response: 'true', css_extractor: '{"a":"h1"}' }, 'json_response'],
      ['outputs', { ...js, screenshot: 'true', outputs: 'links' }, 'image'],
    ])('refuses %s in %j', (parameter, query, words) => {
      const error = refusal(query);
      expect(error).toMatchObject({ code: 'REQS004', extensions: { parameter } });
      expect(error.detail).toContain(words);
    });

    it('lets proxy_country go with mode=auto, and a screenshot inside json_response', () => {
      expect(parse({ mode: 'auto', proxy_country: 'de' }).options).toMatchObject({ mode: 'auto', proxy_country: 'de' });
      expect(parse({ ...js, json_response: 'true', screenshot: 'true' }).options).toMatchObject({
        json_response: true,
        screenshot: { fullpage: false, format: 'png' },
      });
    });
  });

  describe('extract', () => {
    it('reports extract=auto and its deprecated alias autoparse=true', () => {
      expect(parse({ extract: 'auto' }).extract).toBe(true);
      expect(parse({ autoparse: 'true' }).extract).toBe(true);
      expect(parse({ autoparse: 'false' }).extract).toBe(false);
    });

    it('ignores the other output formats with extract (spec §4 rule 1)', () => {
      const parsed = parse({ extract: 'auto', response_type: 'markdown', css_extractor: '{"a":"h1"}', outputs: 'emails' });
      expect(parsed.options).not.toHaveProperty('response_type');
      expect(parsed.options).not.toHaveProperty('css_extractor');
      expect(parsed.options).not.toHaveProperty('outputs');
    });
  });
});
