import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { EXTRACT_SITES, siteUrl, type ExtractSiteTruth } from '../fixtures/web/sites/extract';
import { checkedFetch } from '../support/api-document';
import { describeMistakes, scoreSite, type FieldMapping, type ScoredPage, type SiteScore } from '../support/extract-scoring';
import { ApiClient, freePort, Platform } from '../support/platform';
import { nonEnglishWords } from '../support/plain-field-names';
import { makeTestCa } from '../support/test-ca';

/** Thresholds per site over its held-out pages (issue: extract=auto quality on the synthetic suite). */
const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.85;
/** Longest a domain may take to become ready (every site prepares at once, the JS one renders). */
const PREPARE_TIMEOUT_MS = 300_000;
/** Preparation fetches "up to ~40 pages"; with robots.txt and sitemaps a site sees at most this many requests. */
const PREPARATION_MAX_REQUESTS = 50;
/** Held-out pages extracted at once. */
const EXTRACT_CONCURRENCY = 4;

interface PreparedDomain {
  domain: string;
  status: 'queued' | 'preparing' | 'ready' | 'failed';
  served?: boolean;
  needs_js_render?: boolean;
  progress: { pages_fetched: number; pages_analysed: number };
  page_types?: { name: string; fields: string[] }[];
  failure_reason?: string;
  recipe_version?: number;
}

interface ExtractAnswer {
  status: number;
  headers: Headers;
  text: string;
  json<T = any>(): T;
}

/**
 * extract=auto end to end on the synthetic sites (test/fixtures/web/sites/extract): every service as
 * a process, the fixture web on loopback, only the public API. Each site is prepared from its example
 * URLs; its held-out pages (some linked nowhere) are then extracted and scored against the truth
 * with the learned field names mapped to the truth's attributes (test/support/extract-scoring.ts).
 */
describe('Extract (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let apiKey: string;
  let proxyPort: number;
  const caDir = mkdtempSync(join(tmpdir(), 'extract-e2e-'));
  const scores = new Map<string, SiteScore>();

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxyPort = await freePort();
    const ca = makeTestCa();
    writeFileSync(join(caDir, 'ca.crt'), ca.certPem);
    platform = new Platform('extract', {
      hostMap: fixtureHostMap(),
      // Every service: which one prepares domains (scheduler or another) is the platform's business.
      env: {
        gateway: { PROXY_MODE_PORT: String(proxyPort), PROXY_MODE_CA_CERT: join(caDir, 'ca.crt'), PROXY_MODE_CA_KEY: ca.keyPem },
        // Every site at once, with a short pause between pages: politeness is the unit tests' and
        // the crash suite's business, this suite's is what is learned.
        scheduler: { PREPARE_CONCURRENCY: '6', PREPARE_FETCH_INTERVAL_MS: '100' },
      },
    });
    await platform.start();
    // Six new domains, and every held-out page fetched twice (scoring, then after re-preparation).
    const tenant = await platform.createTenant({ extract_domains_per_period: 100, credits: 1_000_000 });
    apiKey = tenant.api_key;
    api = platform.client(apiKey);
    // All sites prepare at once; each test then waits for its own.
    for (const site of EXTRACT_SITES) {
      const answer = await prepare(site);
      expect({ host: site.host, status: answer.status }).toEqual({ host: site.host, status: 202 });
      expect(answer.body).toMatchObject({
        domain: site.host,
        status: expect.stringMatching(/^(queued|preparing|ready)$/),
        progress: expect.any(Object),
      });
    }
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
    rmSync(caDir, { recursive: true, force: true });
  }, 60_000);

  function prepare(site: ExtractSiteTruth) {
    return api.request<PreparedDomain>('POST', '/v1/extract/prepared-domains', {
      domain: site.host,
      example_urls: site.examplePaths.map((path) => siteUrl(site, web.port, path)),
    });
  }

  /** Polls the domain's record until it is `ready`; fails at once when it is `failed`, with its reason. */
  async function waitUntilReady(domain: string, timeoutMs = PREPARE_TIMEOUT_MS): Promise<PreparedDomain> {
    const record = await waitFor(
      async () => {
        const res = await api.request<PreparedDomain>('GET', `/v1/extract/prepared-domains/${encodeURIComponent(domain)}`);
        if (res.status !== 200) throw new Error(`GET prepared-domains/${domain} answered ${res.status}: ${res.text}`);
        return res.body.status === 'ready' || res.body.status === 'failed' ? res.body : undefined;
      },
      { timeoutMs, intervalMs: 500, what: `${domain} to be prepared` },
    );
    if (record.status === 'failed') throw new Error(`preparing ${domain} failed: ${record.failure_reason ?? '(no reason given)'}`);
    return record;
  }

  /**
   * Prepares a ready domain again through the admin API (docs/decisions/extract.md, "Prepared
   * again"), and resolves once the new recipe serves it: the old one served meanwhile.
   */
  async function reprepare(domain: string): Promise<PreparedDomain> {
    const before = (await api.request<PreparedDomain>('GET', `/v1/extract/prepared-domains/${domain}`)).body;
    const asked = await platform.admin<PreparedDomain>('POST', `/admin/v1/extract/domains/${domain}/prepare`, {});
    expect({ domain, status: asked.status }).toEqual({ domain, status: 202 });
    expect(asked.body).toMatchObject({ status: 'queued', served: true, recipe_version: before.recipe_version });
    return waitFor(
      async () => {
        const record = (await api.request<PreparedDomain>('GET', `/v1/extract/prepared-domains/${domain}`)).body;
        if (record.status === 'failed') throw new Error(`preparing ${domain} again failed: ${record.failure_reason ?? ''}`);
        return record.status === 'ready' && (record.recipe_version ?? 0) > (before.recipe_version ?? 0) ? record : undefined;
      },
      { timeoutMs: PREPARE_TIMEOUT_MS, intervalMs: 500, what: `${domain} to be prepared again` },
    );
  }

  /** One Fetch API call with `extract=auto`, as the SDKs send it. */
  async function extract(url: string, jsRender: boolean): Promise<ExtractAnswer> {
    const query = new URLSearchParams({ apikey: apiKey, url, extract: 'auto', ...(jsRender && { js_render: 'true' }) });
    const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${query.toString()}`);
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  }

  function expectProblem(answer: ExtractAnswer, status: number, code: string): Record<string, unknown> {
    expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({
      status,
      type: expect.stringMatching(/^application\/problem\+json/),
    });
    const problem = answer.json<Record<string, unknown>>();
    expect(problem).toMatchObject({
      type: expect.stringContaining(code),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
    });
    return problem;
  }

  /** Extracts every held-out page of a site and scores the answers against its truth. */
  async function extractAndScore(site: ExtractSiteTruth): Promise<SiteScore> {
    // A few pages at a time, as a client would: the rendered site's pages take a browser each.
    const scored = await inBatches(site.heldOutPaths, EXTRACT_CONCURRENCY, async (path) => {
      const url = siteUrl(site, web.port, path);
      const answer = await extract(url, site.jsRender);
      let parsed: unknown;
      if (answer.status === 200) {
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        const body = answer.json<{ parsed: unknown; html: unknown }>();
        expect(typeof body.html).toBe('string');
        parsed = body.parsed;
      }
      // A failed page stays in the score with nothing predicted: its truth counts against recall.
      return { url, pageType: site.pages[path].pageType, truth: site.pages[path].record, parsed } satisfies ScoredPage;
    });
    return scoreSite(scored, site.kinds);
  }

  /** `work` on every item, `size` at a time, results in the items' order. */
  async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
    const results: R[] = [];
    for (let at = 0; at < items.length; at += size) results.push(...(await Promise.all(items.slice(at, at + size).map(work))));
    return results;
  }

  function summary(score: SiteScore) {
    return {
      precision: Number(score.precision.toFixed(3)),
      recall: Number(score.recall.toFixed(3)),
      counts: `${score.correct} right of ${score.predicted} predicted, ${score.expected} expected`,
      mapping: score.mapping,
      mistakes: describeMistakes(score),
    };
  }

  describe.each(EXTRACT_SITES.map((site) => [site.host, site] as const))('%s', (host, site) => {
    it(
      'is prepared from its examples, politely and within its page budget',
      async () => {
        const record = await waitUntilReady(host);
        expect(record.page_types?.length).toBeGreaterThan(0);
        // Names a developer reads in `parsed`: English words, never class tokens or URL fragments.
        for (const pageType of record.page_types ?? []) {
          for (const name of [pageType.name, ...pageType.fields])
            expect({ name, notEnglish: nonEnglishWords(name) }).toEqual({ name, notEnglish: [] });
        }
        expect(record.needs_js_render).toBe(site.jsRender);
        expect(record.progress.pages_fetched).toBeGreaterThanOrEqual(site.examplePaths.length);
        for (const path of site.examplePaths) expect(web.hits(host, path)).toBeGreaterThan(0);
        expect(web.hits(host, '/robots.txt')).toBeGreaterThan(0);
        for (const path of site.disallowedPaths) expect({ path, hits: web.hits(host, path) }).toEqual({ path, hits: 0 });
        expect(web.requestedPaths(host).length).toBeLessThanOrEqual(PREPARATION_MAX_REQUESTS);
        // Held-out pages linked nowhere cannot have been learned from.
        for (const path of site.unlinkedPaths) expect({ path, hits: web.hits(host, path) }).toEqual({ path, hits: 0 });
      },
      PREPARE_TIMEOUT_MS + 10_000,
    );

    it(
      `extracts its held-out pages with precision ≥ ${MIN_PRECISION} and recall ≥ ${MIN_RECALL}`,
      async () => {
        await waitUntilReady(host);
        const score = await extractAndScore(site);
        scores.set(host, score);
        const seen = summary(score);
        expect({ host, precisionMet: score.precision >= MIN_PRECISION, recallMet: score.recall >= MIN_RECALL, ...seen }).toEqual({
          host,
          precisionMet: true,
          recallMet: true,
          ...seen,
        });
        // Every truth attribute found a field (an unmapped one is a field never extracted right).
        for (const [pageType, names] of Object.entries(score.mapping)) {
          const attributes = new Set(
            site.heldOutPaths.filter((p) => site.pages[p].pageType === pageType).flatMap((p) => Object.keys(site.pages[p].record)),
          );
          for (const attribute of attributes)
            expect({ pageType, attribute, mapped: attribute in names }).toEqual({ pageType, attribute, mapped: true });
          // Fields of list records too (`items[].title`).
          for (const field of Object.values(names).flatMap((path) => path.split('[].')))
            expect({ field, notEnglish: nonEnglishWords(field) }).toEqual({ field, notEnglish: [] });
        }
      },
      PREPARE_TIMEOUT_MS + 120_000,
    );
  });

  it('lists every prepared domain', async () => {
    const domains: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
      const res = await api.request<{ domains: { domain: string }[]; next_cursor: string | null }>('GET', `/v1/extract/domains${query}`);
      expect(res.status).toBe(200);
      domains.push(...res.body.domains.map((d) => d.domain));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(domains).toEqual(expect.arrayContaining(EXTRACT_SITES.map((site) => site.host)));
  });

  it('answers REQS007 naming the domain for a domain that is not prepared', async () => {
    const problem = expectProblem(await extract(web.url('other.test', '/x'), false), 403, 'REQS007');
    expect(problem.detail).toContain('other.test');
  });

  it('answers RESP003 for a prepared domain’s page with nothing to extract', async () => {
    const site = EXTRACT_SITES.find((s) => s.emptyPaths.length > 0)!;
    await waitUntilReady(site.host);
    expectProblem(await extract(siteUrl(site, web.port, site.emptyPaths[0]), false), 502, 'RESP003');
  });

  // The field names a tenant's code depends on must survive a re-preparation of the domain.
  it(
    'learns the same field names when every domain is prepared again',
    async () => {
      const before = new Map<string, FieldMapping>();
      for (const site of EXTRACT_SITES) {
        await waitUntilReady(site.host);
        before.set(site.host, (scores.get(site.host) ?? (await extractAndScore(site))).mapping);
      }
      // All at once, as the first preparations ran: the scheduler prepares six domains side by side.
      await Promise.all(EXTRACT_SITES.map((site) => reprepare(site.host)));
      for (const site of EXTRACT_SITES) {
        const after = await extractAndScore(site);
        expect({ host: site.host, mapping: after.mapping }).toEqual({ host: site.host, mapping: before.get(site.host) });
      }
    },
    2 * PREPARE_TIMEOUT_MS,
  );

  /** A held-out page, not an article, of a site served without rendering, once its domain is ready. */
  async function preparedPageUrl(): Promise<string> {
    const site = EXTRACT_SITES.find((s) => !s.jsRender && s.pages[s.heldOutPaths[0]].pageType !== 'article')!;
    await waitUntilReady(site.host);
    return siteUrl(site, web.port, site.heldOutPaths[0]);
  }

  /** The job once its latest run has ended. */
  async function endedJob(client: ApiClient, jobId: string): Promise<Record<string, any>> {
    return client.waitUntilRunEnded(jobId, 60_000);
  }

  /** `parsed` of a page asked directly, for comparing the other ways in. */
  async function parsedOf(url: string): Promise<unknown> {
    const answer = await extract(url, false);
    expect({ url, status: answer.status }).toEqual({ url, status: 200 });
    return answer.json<{ parsed: unknown }>().parsed;
  }

  it(
    'serves extract=auto in a batch job: the same parsed record, billed as a Fetch request; an unprepared domain fails REQS007, free',
    async () => {
      const url = await preparedPageUrl();
      const created = await api.request('POST', '/v1/jobs', {
        service_params: { extract: 'auto' },
        tasks: [
          { url, external_id: 'prepared' },
          { url: web.url('other.test', '/x'), external_id: 'unprepared' },
        ],
      });
      expect(created.status).toBe(201);
      const jobId = created.body.job_id as string;
      const ended = await endedJob(api, jobId);
      expect(ended.latest_run.stats).toMatchObject({ total: 2, successful: 1, failed: 1, spend: { credits: 1 } });
      const results = (await api.request('GET', `/v1/jobs/${jobId}/results`)).body.results as Record<string, any>[];
      const prepared = results.find((r) => r.external_id === 'prepared')!;
      expect(prepared).toMatchObject({ status: 'successful', output_format: 'json', credits: 1 });
      const content = JSON.parse(prepared.content as string) as { parsed: unknown; html: string };
      expect(content.parsed).toEqual(await parsedOf(url));
      expect(typeof content.html).toBe('string');
      expect(results.find((r) => r.external_id === 'unprepared')).toMatchObject({
        status: 'failed',
        credits: 0,
        error: { code: 'REQS007' },
      });
    },
    PREPARE_TIMEOUT_MS + 60_000,
  );

  it(
    'refuses Extract to a plan without the extract product: Fetch answers 402 AUTH012, a batch task fails AUTH012, free',
    async () => {
      const url = await preparedPageUrl();
      const tenant = await platform.createTenant();
      await platform.patchTenant(tenant.tenant_id, { products: ['fetch', 'batch'] });
      const client = platform.client(tenant.api_key);
      const direct = await checkedFetch(
        `${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: tenant.api_key, url, extract: 'auto' })}`,
      );
      expect({ status: direct.status, code: ((await direct.json()) as { code?: string }).code }).toEqual({ status: 402, code: 'AUTH012' });

      const created = await client.request('POST', '/v1/jobs', { service_params: { extract: 'auto' }, tasks: [{ url }] });
      expect(created.status).toBe(201);
      const jobId = created.body.job_id as string;
      const ended = await endedJob(client, jobId);
      expect(ended.latest_run.stats).toMatchObject({ total: 1, failed: 1, spend: { credits: 0 } });
      const [result] = (await client.request('GET', `/v1/jobs/${jobId}/results`)).body.results as Record<string, any>[];
      expect(result).toMatchObject({ status: 'failed', credits: 0, error: { code: 'AUTH012' } });
    },
    PREPARE_TIMEOUT_MS + 60_000,
  );

  it(
    'serves extract=auto through proxy mode as the SDKs send it',
    async () => {
      const site = EXTRACT_SITES.find((s) => !s.jsRender)!;
      await waitUntilReady(site.host);
      const url = siteUrl(site, web.port, site.heldOutPaths[0]);
      // A plain (not tunnelled) proxy request: the gateway fetches the URL with the password's parameters.
      const agent = new ProxyAgent({
        uri: `http://127.0.0.1:${proxyPort}`,
        token: `Basic ${Buffer.from(`${apiKey}:extract=auto`).toString('base64')}`,
        proxyTunnel: false,
      });
      try {
        const res = await undiciRequest(url, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const body = (await res.body.json()) as { parsed: unknown };
        expect(body.parsed).toEqual(await parsedOf(url));
      } finally {
        await agent.close();
      }
    },
    PREPARE_TIMEOUT_MS + 30_000,
  );

  it('refuses a new domain past the account’s allowance, naming the limit, and still serves prepared domains to it', async () => {
    const tenant = await platform.createTenant({ extract_domains_per_period: 1 });
    const client = platform.client(tenant.api_key);
    expect((await client.request('POST', '/v1/extract/prepared-domains', { domain: 'first-ask.example' })).status).toBe(202);
    const refused = await client.request('POST', '/v1/extract/prepared-domains', { domain: 'second-ask.example' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'extract_domain_quota_exceeded', limit: 1 });
    expect(refused.body.detail).toContain('1 new domain per billing period');
    // A domain another tenant had prepared is no new domain.
    const shared = await client.request('POST', '/v1/extract/prepared-domains', { domain: EXTRACT_SITES[0].host });
    expect(shared.status).toBe(202);
  });
});
