import { buildOpenApiDocument, PUBLIC_API_ROUTES } from '@trawl/contracts/http';
import { ApiDocument } from './api-document';

const document = ApiDocument.fromDocument(buildOpenApiDocument(PUBLIC_API_ROUTES, { version: '0.0.0' }));
const origin = 'http://gateway.test';

function answer(status: number, contentType: string, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: new Headers({ 'content-type': contentType }), bytes: Buffer.from(text) };
}

const crawl = {
  crawl_id: 'c1',
  status: 'running',
  url: 'https://shop.test/',
  max_items: 100,
  max_pages: 100,
  include_patterns: [],
  exclude_patterns: [],
  sitemap: 'skip',
  respect_robots: false,
  discovery: ['links'],
  sitemap_urls: 0,
  robots_disallowed: 0,
  coverage: { pages_fetched: 0, pages_failed: 0, items_found: 0 },
  duplicates_removed: 0,
  created_at: '2026-01-01T00:00:00.000Z',
};
const problem = {
  type: 'about:blank',
  code: 'crawl_not_found',
  title: 'Crawl not found',
  status: 404,
  detail: 'No crawl.',
  instance: 'i1',
};

describe(ApiDocument.name, () => {
  describe('check', () => {
    it('accepts answers the document describes', () => {
      expect(() => document.check('POST', new URL(`${origin}/v1/crawls`), answer(202, 'application/json', crawl))).not.toThrow();
      expect(() =>
        document.check('GET', new URL(`${origin}/v1/crawls/c1`), answer(404, 'application/problem+json', problem)),
      ).not.toThrow();
      expect(() =>
        document.check(
          'GET',
          new URL(`${origin}/v1/crawls/c1/download`),
          answer(200, 'application/x-ndjson', '{"url":"https://shop.test/a"}\n'),
        ),
      ).not.toThrow();
    });

    it('refuses a body that does not match its schema', () => {
      const { coverage: _coverage, ...withoutCoverage } = crawl;
      expect(() => document.check('POST', new URL(`${origin}/v1/crawls`), answer(202, 'application/json', withoutCoverage))).toThrow(
        /coverage/,
      );
      expect(() =>
        document.check(
          'GET',
          new URL(`${origin}/v1/crawls`),
          answer(200, 'application/json', { crawls: [{ ...crawl, status: 'paused' }] }),
        ),
      ).toThrow(/does not match/);
      expect(() =>
        document.check(
          'GET',
          new URL(`${origin}/v1/crawls/c1/download`),
          answer(200, 'application/x-ndjson', '{"url":"u"}\n{"link":"u"}\n'),
        ),
      ).toThrow(/line 2/);
    });

    it('refuses an undocumented route, status or content type', () => {
      expect(() => document.check('GET', new URL(`${origin}/v1/nothing`), answer(200, 'application/json', {}))).toThrow(/no operation/);
      expect(() => document.check('GET', new URL(`${origin}/v1/crawls`), answer(418, 'application/problem+json', problem))).toThrow(
        /not documented/,
      );
      expect(() => document.check('GET', new URL(`${origin}/v1/crawls/c1/contents/f1`), answer(200, 'text/plain', 'x'))).toThrow(
        /content type/,
      );
    });

    it("checks a Fetch answer's JSON against the shape its parameters asked for", () => {
      const url = new URL(`${origin}/v1/?url=https%3A%2F%2Fshop.test%2F&json_response=true`);
      expect(() => document.check('GET', url, answer(200, 'application/json', { html: '<p>', xhr: [] }))).not.toThrow();
      expect(() => document.check('GET', url, answer(200, 'application/json', { parsed: {} }))).toThrow(/FetchJsonResponse/);
      // Without a JSON parameter the JSON is the target's own.
      expect(() => document.check('GET', new URL(`${origin}/v1?url=x`), answer(200, 'application/json', [1, 2]))).not.toThrow();
    });
  });
});
