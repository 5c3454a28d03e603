import type { ExtractRecipeRefV1 } from '@trawl/contracts';
import type { Recipe } from '@trawl/extraction';
import type { RecipeSource } from './extract-recipes';
import pino from 'pino';
import { Registry } from 'prom-client';
import { Tier } from '@trawl/billing';
import type { FetchOptionsV1, FetchRequestV1 } from '@trawl/contracts';
import type { CaptchaPass } from '../captcha/captcha-pass';
import type { FetchEngine, TargetPage, TargetRequest } from '../target-fetch/fetch-engine';
import { FetchRequestError } from './fetch-request.errors';
import { FetchRequestMetrics } from './fetch-request.metrics';
import { FetchRequestService } from './fetch-request.service';
import type { FetchEngineSet } from '../target-fetch/fetch-engine.router';
import { TargetFetcher } from '../target-fetch/target-fetcher';
import type { PageTransforms } from './page-transforms';
import { testIdentities } from '../identity/identity.test-support';

const OPTIONS: FetchOptionsV1 = { js_render: false, premium_proxy: false, json_response: false, original_status: false };

function request(options: Partial<FetchOptionsV1> = {}, extra: Partial<FetchRequestV1> = {}): FetchRequestV1 {
  return {
    v: 1,
    request_id: 'req-1',
    tenant_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d',
    url: 'http://shop.test/p',
    method: 'GET',
    headers: {},
    options: { ...OPTIONS, ...options },
    deadline_at: Date.now() + 10_000,
    max_body_bytes: 1024,
    ...extra,
  };
}

/** An engine that answers one page (or throws), and records what it was asked. */
class FakeEngine implements FetchEngine {
  readonly asked: TargetRequest[] = [];
  constructor(private readonly answer: (request: TargetRequest) => Promise<TargetPage>) {}
  fetch(request: TargetRequest): Promise<TargetPage> {
    this.asked.push(request);
    return this.answer(request);
  }
}

const htmlPage = (tier: Tier, status = 200): TargetPage => ({
  tier,
  status,
  finalUrl: 'http://shop.test/p',
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  body: Buffer.from('<p>hi</p>'),
});

const transforms: PageTransforms = {
  toMarkdown: () => 'md',
  toPlainText: () => 'txt',
  applyCssExtractor: () => {
    throw new FetchRequestError('RESP004', 'The selector `a[[` of `bad` is not valid CSS.');
  },
  extractOutputs: () => ({}),
  // A recipe that names a page type finds `title` on the page; one without finds nothing.
  applyRecipe: (recipe) => (recipe.page_types.length > 0 ? { title: 'hi' } : {}),
};

function recipeOf(domain: string, version: number, typed: boolean): Recipe {
  return { format: 1, domain, version, page_types: typed ? [{ name: 'product', url_patterns: ['/p'], signature: [], fields: [] }] : [] };
}

/** Recipes by `domain/version`, counting reads. */
function recipeSource(recipes: Recipe[]): RecipeSource & { reads: number } {
  const source = {
    reads: 0,
    get: async (ref: ExtractRecipeRefV1) => {
      source.reads += 1;
      const found = recipes.find((r) => r.domain === ref.domain && r.version === ref.version);
      if (!found) throw new FetchRequestError('ERR0001', 'missing');
      return found;
    },
  };
  return source;
}

const noCaptcha = { pass: () => Promise.resolve(undefined) } as unknown as CaptchaPass;

function service(engines: FetchEngineSet, logger = pino({ level: 'silent' }), recipes?: RecipeSource) {
  const target = new TargetFetcher({ engines, identities: testIdentities, captcha: noCaptcha });
  return new FetchRequestService(target, transforms, { maxBodyBytes: 10_000 }, new FetchRequestMetrics(new Registry()), logger, recipes);
}

const bodyOf = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;

describe(FetchRequestService.name, () => {
  describe('handle', () => {
    it('serves js_render with the browser engine and bills the tier of the page that served', async () => {
      const basic = new FakeEngine(async () => htmlPage(Tier.Basic));
      const browser = new FakeEngine(async () => htmlPage(Tier.JsRender));
      const answer = await service({ http: basic, browser }).handle(request({ js_render: true }), new AbortController().signal);
      expect(answer.head).toMatchObject({ status: 200, billed_tier: 'js_render' });
      expect([basic.asked.length, browser.asked.length]).toEqual([0, 1]);
    });

    it('serves premium with the HTTP engine, billed premium', async () => {
      const http = new FakeEngine(async (asked) => htmlPage(asked.tier));
      const answer = await service({ http }).handle(request({ premium_proxy: true }), new AbortController().signal);
      expect(answer.head.billed_tier).toBe('premium');
      expect(http.asked[0].tier).toBe('premium');
    });

    it('answers ERR0001, free, when the worker has no browser for js_render', async () => {
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }).handle(
        request({ js_render: true }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 500, billed_tier: null, error: { code: 'ERR0001' } });
    });

    it('hides an unexpected failure behind a generic detail and logs it with the instance', async () => {
      const logged: unknown[] = [];
      const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line)) });
      const engine = new FakeEngine(async () => {
        throw new TypeError('secret internals');
      });
      const answer = await service({ http: engine }, logger).handle(request(), new AbortController().signal);
      expect(answer.head).toMatchObject({ status: 500, billed_tier: null, error: { code: 'ERR0001' } });
      expect(answer.body.toString()).not.toContain('secret internals');
      expect(logged).toEqual([expect.objectContaining({ instance: 'urn:trawl:request:req-1', msg: 'fetch request failed' })]);
    });

    it('answers {parsed, html} with extract, billed at the tier of the page', async () => {
      const recipes = recipeSource([recipeOf('shop.test', 2, true)]);
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }, undefined, recipes).handle(
        request({ extract: { domain: 'shop.test', version: 2 } }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 200, billed_tier: 'basic', content_type: 'application/json; charset=utf-8' });
      expect(bodyOf(answer)).toEqual({ parsed: { title: 'hi' }, html: '<p>hi</p>' });
    });

    it('answers RESP003, free, when the recipe finds nothing on the page', async () => {
      const recipes = recipeSource([recipeOf('shop.test', 1, false)]);
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }, undefined, recipes).handle(
        request({ extract: { domain: 'shop.test', version: 1 } }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 502, billed_tier: null, error: { code: 'RESP003' } });
    });

    it('answers ERR0001, free, when the recipe cannot be read', async () => {
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }, undefined, recipeSource([])).handle(
        request({ extract: { domain: 'shop.test', version: 9 } }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 500, billed_tier: null, error: { code: 'ERR0001' } });
    });

    it('answers RESP004 from the css_extractor transform, free', async () => {
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }).handle(
        request({ css_extractor: { bad: 'a[[' } }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 400, billed_tier: null, error: { code: 'RESP004' } });
      expect(bodyOf(answer)).toMatchObject({ code: 'RESP004', detail: 'The selector `a[[` of `bad` is not valid CSS.' });
    });

    it('answers RESP005 when the shaped answer is over max_body_bytes although the page was not', async () => {
      const answer = await service({ http: new FakeEngine(async () => htmlPage(Tier.Basic)) }).handle(
        request({ json_response: true }, { max_body_bytes: 10 }),
        new AbortController().signal,
      );
      expect(answer.head).toMatchObject({ status: 413, error: { code: 'RESP005' } });
    });

    it('gives the engine the caller’s method, body and headers over the browser’s, and the time left', async () => {
      const engine = new FakeEngine(async () => htmlPage(Tier.Basic));
      await service({ http: engine }).handle(
        request(
          {},
          { method: 'PUT', headers: { 'x-a': '1' }, body_base64: Buffer.from('hello').toString('base64'), deadline_at: Date.now() + 5_000 },
        ),
        new AbortController().signal,
      );
      const [asked] = engine.asked;
      expect(asked).toMatchObject({ method: 'PUT', body: Buffer.from('hello'), maxBodyBytes: 1024 });
      expect(asked.callerHeaders).toEqual({ 'x-a': '1', 'content-type': 'application/x-www-form-urlencoded' });
      expect(asked.identity.userAgent).toContain(' Chrome/156.');
      expect(asked.timeoutMs).toBeGreaterThan(4_000);
      expect(asked.timeoutMs).toBeLessThanOrEqual(5_000);
    });

    it('answers CTX0002 at once when the deadline has already passed', async () => {
      const engine = new FakeEngine(() => new Promise<TargetPage>(() => undefined));
      const answer = await service({ http: engine }).handle(request({}, { deadline_at: Date.now() - 1 }), new AbortController().signal);
      expect(answer.head).toMatchObject({ status: 504, billed_tier: null, error: { code: 'CTX0002' } });
    });

    it('answers ERR0001, not CTX0001, when the worker shuts down under a request', async () => {
      const shutdown = new AbortController();
      const engine = new FakeEngine(() => new Promise<TargetPage>(() => undefined));
      const answering = service({ http: engine }).handle(request(), new AbortController().signal, shutdown.signal);
      shutdown.abort(new Error('stopping'));
      expect((await answering).head).toMatchObject({ status: 500, error: { code: 'ERR0001' } });
    });
  });
});
