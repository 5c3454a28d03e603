import { Client } from 'pg';
import type { FixtureWeb } from '../fixtures/web';
import { BOT_WALL_PATH, BOT_WALLS } from '../fixtures/web/sites/bot-walls';
import { NEEDS_JS_ITEM_PATHS, STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../fixtures/web/sites/stealth';
import type { ApiClient, Platform } from '../support/platform';
import { tiersPlatform, type TiersPlatform } from '../support/tiers-platform.test-support';

/**
 * Crawl pages as Fetch requests in adaptive stealth mode (Crawl spec §1 and its cost rules: each
 * page billed 1 to 25 credits depending on the site), end to end: real Chromium in the worker,
 * fixture forward proxies as the standard and premium pools, the fixture web's stealth sites, and
 * the credit ledger (which has no endpoint) read for what each page cost.
 */
describe('Crawl pages through the Fetch tiers (e2e)', () => {
  const tiers = tiersPlatform('crawl-tiers', ['gateway', 'crawl-coordinator', 'fetch-worker']);
  let web: FixtureWeb;
  let proxies: TiersPlatform['proxies'];
  let platform: Platform;

  beforeAll(() => {
    ({ web, proxies, platform } = tiers);
  });

  async function tenant(settings?: Record<string, unknown>): Promise<ApiClient> {
    const created = await platform.createTenant();
    if (settings) await platform.patchTenant(created.tenant_id, settings);
    return platform.client(created.api_key);
  }

  async function crawl(api: ApiClient, body: Record<string, unknown>) {
    const started = await api.startCrawl(body);
    expect(started.status).toBe(202);
    const id = started.body.crawl_id as string;
    const ended = await api.waitUntilEnded(id, 90_000);
    const results = await api.readAllResults(id);
    return { id, ended, results };
  }

  /** The crawl's ledger rows as `tier:credits`, sorted. */
  async function billed(crawlId: string): Promise<string[]> {
    // A client per look: the platform drops its database when the suite ends.
    const db = new Client({ connectionString: platform.databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ tier: string; credits: number }>(`SELECT tier, credits FROM credit_ledger WHERE ref LIKE $1`, [
        `crawl:${crawlId}:%`,
      ]);
      return rows.rows.map((r) => `${r.tier}:${r.credits}`).sort();
    } finally {
      await db.end();
    }
  }

  it('renders a site whose links exist only in the rendered page, and bills every page at js_render', async () => {
    const api = await tenant();
    const { id, ended, results } = await crawl(api, { url: web.url('needs-js.test', '/'), output_format: 'html' });
    expect(ended.status).toBe('completed');
    expect(results.map((r) => r.url).sort()).toEqual(NEEDS_JS_ITEM_PATHS.map((path) => web.url('needs-js.test', path)).sort());
    // The start page escalated from basic (an empty shell, not billed); the items started where it ended.
    expect(await billed(id)).toEqual(['js_render:5', 'js_render:5', 'js_render:5']);
    const kept = await api.request('GET', results[0]!.content_url!);
    expect(kept.text).toContain(`<div id="root"><h1>Catalogue</h1><p id="content">${STEALTH_TEXTS.needsJs}</p>`);
  }, 120_000);

  it('escalates a guarded page to the premium pool, billed 10, and its open landing page 1', async () => {
    const api = await tenant();
    const { id, ended, results } = await crawl(api, { url: web.url('needs-premium.test', '/'), output_format: 'html' });
    expect(ended).toMatchObject({ status: 'completed', coverage: { pages_failed: 0 } });
    expect(results.map((r) => r.url)).toEqual([web.url('needs-premium.test', STEALTH_GUARDED_PATH)]);
    expect(await billed(id)).toEqual(['basic:1', 'premium:10']);
    const kept = await api.request('GET', results[0]!.content_url!);
    expect(kept.text).toContain(STEALTH_TEXTS.needsPremium);
    const usage = await api.request('GET', '/v1/subscriptions/self/details');
    expect(usage.body).toMatchObject({ credits_used: 11 });
  }, 120_000);

  it('passes an anti-bot wall the way Fetch does: the wall is free, the browser gets the page', async () => {
    const api = await tenant();
    const wall = BOT_WALLS.cloudflare;
    const { id, ended, results } = await crawl(api, { url: web.url(wall.host, '/'), output_format: 'html' });
    expect(ended).toMatchObject({ status: 'completed', coverage: { pages_failed: 0 } });
    expect(results.map((r) => r.url)).toEqual([web.url(wall.host, BOT_WALL_PATH)]);
    expect(await billed(id)).toEqual(['basic:1', 'js_render:5']);
    const kept = await api.request('GET', results[0]!.content_url!);
    expect(kept.text).toContain(wall.text);
  }, 120_000);

  it("stays within the plan's tiers: without premium_proxy a page that needs it fails, free", async () => {
    const api = await tenant({ features: ['js_render'] });
    const { id, ended, results } = await crawl(api, { url: web.url('needs-both.test', '/'), output_format: 'html' });
    expect(ended).toMatchObject({ status: 'completed', coverage: { pages_failed: 1 } });
    expect(results).toEqual([expect.objectContaining({ url: web.url('needs-both.test', STEALTH_GUARDED_PATH), content_status: 'failed' })]);
    // Basic, then js_render were blocked: nothing served the guarded page, so only the landing page is billed.
    expect(await billed(id)).toEqual(['basic:1']);
    expect(
      proxies['premium-a'].hits().filter((hit) => hit.authority.startsWith('needs-both.test') || hit.host?.startsWith('needs-both.test')),
    ).toEqual([]);
  }, 120_000);
});
