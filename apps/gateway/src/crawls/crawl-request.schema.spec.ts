import { parseBody } from '../problems/body-validation';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { startCrawlBody } from '@trawl/contracts/http';
import { effectiveSettings } from './crawl-request.schema';

function refusal(body: unknown): { code: RequestErrorCode; parameter: unknown; detail: string } {
  try {
    parseBody(startCrawlBody, body);
  } catch (error) {
    if (error instanceof RequestError) return { code: error.code, parameter: error.extensions.parameter, detail: error.detail };
    throw error;
  }
  throw new Error('body was accepted');
}

describe('startCrawlBody', () => {
  describe('parseBody', () => {
    it.each([
      ['an unknown field', { url: 'http://a.test/', colour: 'red' }, RequestErrorCode.UnknownParameter, 'colour'],
      ['an unknown field besides a bad value', { url: 1, zzz: 1 }, RequestErrorCode.UnknownParameter, 'zzz'],
      ['a missing url', {}, RequestErrorCode.InvalidParameter, 'url'],
      ['a url that is no string', { url: 5 }, RequestErrorCode.InvalidParameter, 'url'],
      ['a string max_items', { url: 'u', max_items: '10' }, RequestErrorCode.InvalidParameter, 'max_items'],
      ['a fractional max_pages', { url: 'u', max_pages: 1.5 }, RequestErrorCode.InvalidParameter, 'max_pages'],
      ['a depth of the wrong type', { url: 'u', depth: true }, RequestErrorCode.InvalidParameter, 'depth'],
      ['patterns that are no array', { url: 'u', include_patterns: 'a' }, RequestErrorCode.InvalidParameter, 'include_patterns'],
      ['a pattern that is no string', { url: 'u', exclude_patterns: ['a', 3] }, RequestErrorCode.InvalidParameter, 'exclude_patterns[1]'],
      ['an output_format that is no string', { url: 'u', output_format: 1 }, RequestErrorCode.InvalidParameter, 'output_format'],
      ['a type error besides a range error', { url: 'u', max_items: 0, depth: 'x' }, RequestErrorCode.InvalidParameter, 'depth'],
      ['max_items 0', { url: 'u', max_items: 0 }, RequestErrorCode.ParameterOutOfRange, 'max_items'],
      ['max_items above 100,000', { url: 'u', max_items: 100_001 }, RequestErrorCode.ParameterOutOfRange, 'max_items'],
      ['max_pages 0', { url: 'u', max_pages: 0 }, RequestErrorCode.ParameterOutOfRange, 'max_pages'],
      ['depth 0', { url: 'u', depth: 0 }, RequestErrorCode.ParameterOutOfRange, 'depth'],
      ['depth above 100,000', { url: 'u', depth: 100_001 }, RequestErrorCode.ParameterOutOfRange, 'depth'],
      ['an empty pattern', { url: 'u', include_patterns: ['a', ''] }, RequestErrorCode.ParameterOutOfRange, 'include_patterns[1]'],
      ['101 patterns', { url: 'u', exclude_patterns: Array(101).fill('x') }, RequestErrorCode.ParameterOutOfRange, 'exclude_patterns'],
      ['an output_format other than html', { url: 'u', output_format: 'pdf' }, RequestErrorCode.ParameterOutOfRange, 'output_format'],
    ])('refuses %s', (_what, body, code, parameter) => {
      const result = refusal(body);
      expect(result).toMatchObject({ code, parameter });
      expect(result.detail).toContain(`\`${parameter}\``);
    });

    it.each([
      ['no body', undefined],
      ['null', null],
      ['an array', [{ url: 'u' }]],
      ['a string', 'http://a.test/'],
    ])('refuses %s as invalid_request', (_what, body) => {
      expect(refusal(body).code).toBe(RequestErrorCode.InvalidRequest);
    });

    it('accepts the bounds and treats null as left out', () => {
      expect(
        parseBody(startCrawlBody, {
          url: 'http://a.test/',
          depth: null,
          max_items: 100_000,
          max_pages: 1,
          include_patterns: ['/p/'],
          exclude_patterns: null,
          output_format: 'html',
        }),
      ).toEqual({ url: 'http://a.test/', max_items: 100_000, max_pages: 1, include_patterns: ['/p/'], output_format: 'html' });
    });
  });

  describe(effectiveSettings.name, () => {
    it('applies the defaults of spec §4', () => {
      expect(effectiveSettings(parseBody(startCrawlBody, { url: 'http://a.test/' }), 'http://a.test/')).toEqual({
        url: 'http://a.test/',
        depth: undefined,
        maxItems: 100,
        maxPages: 100,
        includePatterns: [],
        excludePatterns: [],
        outputFormat: undefined,
        // Ours (not in the spec): links only, robots.txt not consulted, as the spec's crawl.
        sitemap: 'skip',
        respectRobots: false,
      });
    });

    it('keeps the sitemap mode and respect_robots asked for', () => {
      const body = parseBody(startCrawlBody, { url: 'http://a.test/', sitemap: 'only', respect_robots: true });
      expect(effectiveSettings(body, 'http://a.test/')).toMatchObject({ sitemap: 'only', respectRobots: true });
    });
  });
});
