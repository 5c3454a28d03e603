import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { extractRecipeKey } from '@trawl/contracts';
import { learnRecipe, type Recipe } from '@trawl/extraction';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { linksOf, PageCandidates } from './page-candidates';
import { learnableHtml, PreparationFetcher } from './preparation-fetcher';
import { PREPARATION_RECIPES, type RecipeStore } from './recipe-store';
import { type ClaimedPreparation, PreparationsRepository, type StoredPage } from './preparations.repository';
import {
  MAX_CRAWL_DELAY_MS,
  MAX_SITEMAPS,
  PREPARATION_AGENT_TOKEN,
  PREPARATION_SETTINGS,
  type PreparationSettings,
} from './preparation.settings';
import { PreparationsMetrics } from './preparations.metrics';
import { needsRendering, visibleTextLength } from './render-need';
import { OPEN_SITE, parseRobotsTxt, parseSitemap, type SiteRules } from './site-rules';

/** What a delivery of a preparation message came to. */
export type PreparationOutcome =
  /** Served, failed for good, or not this message's to do (stale attempt, held by another replica): ack. */
  | 'settled'
  /** Lost its lease to another preparer midway: ack, the other one finishes. */
  | 'lost';

/**
 * Prepares one domain for Extract (issue 21): finds pages (the examples, pages shaped like them,
 * the sitemap, same-site links; robots.txt honoured, one page at a time with a pause), fetches
 * them through the fetch workers, stores each as it comes (a preparation that dies resumes from
 * them), learns a recipe, and serves it: KV first, then Postgres, so a worker finds every recipe
 * Postgres says is served.
 */
@Injectable()
export class DomainPreparationService {
  constructor(
    private readonly preparations: PreparationsRepository,
    private readonly fetcher: PreparationFetcher,
    private readonly metrics: PreparationsMetrics,
    @Inject(PREPARATION_RECIPES) private readonly recipes: RecipeStore,
    @Inject(PREPARATION_SETTINGS) private readonly settings: PreparationSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Runs (or resumes) the attempt. `working` is called as it makes progress, so the message's ack
   * wait only fires if this process dies.
   */
  async prepare(domain: string, attempt: number, working: () => void): Promise<PreparationOutcome> {
    const claimed = await this.preparations.claim(domain, attempt, this.settings.leaseMs);
    if (!claimed) {
      this.metrics.deliveries.inc({ outcome: 'stale' });
      return 'settled';
    }
    const log = this.logger.child({ domain, attempt, delivery: claimed.deliveries });
    if (claimed.deliveries > this.settings.maxDeliveries) {
      await this.preparations.fail(
        domain,
        attempt,
        `The preparation stopped ${this.settings.maxDeliveries} times before it ended; ask again later.`,
        claimed.holder,
      );
      log.error('extract preparation given up: it kept stopping midway');
      this.metrics.deliveries.inc({ outcome: 'failed' });
      return 'settled';
    }
    log.info({ examples: claimed.exampleUrls.length }, 'extract preparation started');
    const fetched = await this.fetchPages(claimed, working, log);
    if (fetched === undefined) return this.lost();
    const { pages, render } = fetched;
    const learnable = pages.filter((p): p is StoredPage & { html: string } => p.html !== null);
    if (learnable.length === 0) {
      const codes = [...new Set(pages.map((p) => p.errorCode ?? 'not_html'))].join(', ');
      await this.preparations.fail(
        domain,
        attempt,
        `No page of ${domain} could be fetched (${pages.length} tried${codes ? `: ${codes}` : ''}).`,
        claimed.holder,
      );
      log.warn({ tried: pages.length, codes }, 'extract preparation failed: no page fetched');
      this.metrics.deliveries.inc({ outcome: 'failed' });
      return 'settled';
    }
    if (!(await this.preparations.markAnalysing(claimed, learnable.length, this.settings.leaseMs))) return this.lost();
    working();
    const previous = await this.preparations.servedRecipe(domain);
    const version = await this.preparations.nextVersion(domain);
    const learning = this.metrics.learnSeconds.startTimer();
    const { recipe, report } = learnRecipe({
      domain,
      pages: learnable.map((p) => ({ url: p.finalUrl ?? p.url, html: p.html })),
      version,
      ...(previous && { previous: previous.recipe as Recipe }),
    });
    learning();
    const served: Recipe = { ...recipe, render };
    await this.recipes.put(extractRecipeKey({ domain, version }), served);
    const pageTypes = report.page_types.map((t) => ({ name: t.name, fields: t.fields }));
    if (
      !(await this.preparations.serve(claimed, {
        version,
        recipe: served,
        pageTypes,
        needsRender: render,
        pagesAnalysed: report.pages_analysed,
      }))
    ) {
      return this.lost();
    }
    this.metrics.deliveries.inc({ outcome: 'ready' });
    log.info({ version, pages: learnable.length, page_types: pageTypes, needs_render: render }, 'extract preparation ready');
    return 'settled';
  }

  /** Fetches until enough pages are stored or the time is up; undefined when the lease was lost. */
  private async fetchPages(
    claimed: ClaimedPreparation,
    working: () => void,
    log: Logger,
  ): Promise<{ pages: StoredPage[]; render: boolean } | undefined> {
    const { domain, attempt } = claimed;
    const stored = await this.preparations.storedPages(domain, attempt);
    const origin = originOf(claimed.exampleUrls[0] ?? `https://${domain}/`);
    const rules = await this.siteRules(origin);
    const candidates = new PageCandidates(domain, claimed.exampleUrls.length > 0 ? claimed.exampleUrls : [`${origin}/`], (url) =>
      rules.allows(url.pathname + url.search),
    );
    for (const page of stored) candidates.markFetched(page.url);
    for (const page of stored)
      if (page.html !== null) for (const link of linksOf(page.html, page.finalUrl ?? page.url)) candidates.offer(link);
    for (const url of await this.sitemapUrls(origin, rules)) candidates.offer(url);
    const render = await this.renderNeeded(claimed.exampleUrls[0] ?? `${origin}/`, log);
    const pauseMs = Math.max(this.settings.fetchIntervalMs, Math.min(rules.crawlDelayMs ?? 0, MAX_CRAWL_DELAY_MS));
    const fetchUntil = claimed.startedAt.getTime() + this.settings.maxFetchingMs;
    let fetched = stored.filter((p) => p.html !== null).length;
    let tried = stored.length;
    // Failures count too, so a site that fails every page ends after a bounded number of tries.
    while (fetched < this.settings.maxPages && tried < this.settings.maxPages * 2 && Date.now() < fetchUntil) {
      const href = candidates.next();
      if (href === undefined) break;
      if (tried > 0) await delay(pauseMs);
      const page = await this.fetcher.fetch(href, render, `prepare-${randomUUID()}`);
      const html = learnableHtml(page);
      const entry: StoredPage = page.ok
        ? { url: href, finalUrl: page.finalUrl, html: html ?? null, errorCode: html === undefined ? `not_learnable_${page.status}` : null }
        : { url: href, finalUrl: null, html: null, errorCode: page.code };
      if (!(await this.preparations.storePage(claimed, entry, this.settings.leaseMs))) return undefined;
      working();
      this.metrics.pages.inc({ result: entry.html !== null ? 'learnable' : page.ok ? 'not_learnable' : 'failed' });
      stored.push(entry);
      tried += 1;
      if (entry.html !== null) {
        fetched += 1;
        for (const link of linksOf(entry.html, entry.finalUrl ?? href)) candidates.offer(link);
      }
    }
    log.info({ fetched, tried, left: candidates.size }, 'extract preparation fetched its pages');
    return { pages: stored, render };
  }

  private lost(): PreparationOutcome {
    this.metrics.deliveries.inc({ outcome: 'lost' });
    return 'lost';
  }

  /** Its robots.txt; a site without one (or with one we cannot read) is open. */
  private async siteRules(origin: string): Promise<SiteRules> {
    const answer = await this.fetcher.fetch(`${origin}/robots.txt`, false, `prepare-${randomUUID()}`);
    if (!answer.ok || answer.status !== 200) return OPEN_SITE;
    return parseRobotsTxt(answer.body, PREPARATION_AGENT_TOKEN);
  }

  /** Page URLs from the sitemaps robots.txt names, or `/sitemap.xml`; an index's first children too. */
  private async sitemapUrls(origin: string, rules: SiteRules): Promise<string[]> {
    const queue = rules.sitemaps.length > 0 ? [...rules.sitemaps] : [`${origin}/sitemap.xml`];
    const urls: string[] = [];
    for (let read = 0; read < MAX_SITEMAPS && queue.length > 0; read++) {
      const answer = await this.fetcher.fetch(queue.shift() as string, false, `prepare-${randomUUID()}`);
      if (!answer.ok || answer.status !== 200) continue;
      const sitemap = parseSitemap(answer.body);
      if (sitemap.isIndex) queue.push(...sitemap.locations);
      else urls.push(...sitemap.locations);
    }
    return urls;
  }

  /**
   * Whether the domain's pages need rendering, from the first example fetched both ways (or once,
   * when adaptive stealth already had to render it: its HTML asks for JavaScript). Asked again
   * when a preparation resumes, which keeps the decision off the record until the recipe it
   * belongs to is served.
   */
  private async renderNeeded(url: string, log: Logger): Promise<boolean> {
    const servedPage = await this.fetcher.fetch(url, false, `prepare-${randomUUID()}`);
    if (servedPage.ok && (servedPage.tier === 'js_render' || servedPage.tier === 'premium_js_render')) {
      log.info({ url, tier: servedPage.tier }, 'extract preparation renders: adaptive stealth had to render the first example');
      return true;
    }
    const served = learnableHtml(servedPage);
    if (served === undefined) return false;
    const renderedPage = await this.fetcher.fetch(url, true, `prepare-${randomUUID()}`);
    const rendered = learnableHtml(renderedPage);
    const needed = rendered !== undefined && needsRendering(served, rendered);
    log.info(
      {
        url,
        served_text: visibleTextLength(served),
        rendered_text: rendered === undefined ? null : visibleTextLength(rendered),
        ...(!renderedPage.ok && { code: renderedPage.code }),
        needs_render: needed,
      },
      'extract preparation compared the first example served and rendered',
    );
    return needed;
  }
}

function originOf(href: string): string {
  return new URL(href).origin;
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
