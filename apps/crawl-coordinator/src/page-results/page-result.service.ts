import { Inject, Injectable } from '@nestjs/common';
import type { CacheStatus, CrawlPageResultV1 } from '@trawl/contracts';
import { Database, MAX_SKIPPED_RECORDED, Sql } from '@trawl/persistence';
import { Charge, recordCharges } from '@trawl/billing';
import { CrawlLifecycleRepository } from '../crawl-lifecycle/crawl-lifecycle.repository';
import { CrawlLifecycleService } from '../crawl-lifecycle/crawl-lifecycle.service';
import { CrawlRow } from '../crawl-lifecycle/crawl.types';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { DispatchedRow, PageResultRepository } from './page-result.repository';
import { FrontierIntake } from './frontier-intake';
import { KnownFrontierKeys } from './known-frontier-keys';
import { keyOf } from './link-intake';
import type { SeedOutcome } from '../crawl-lifecycle/crawl-completion';

/**
 * The longest `Crawl-delay` a crawl keeps between its pages, in ms: a robots.txt asking for more would
 * hold a crawl of 100 pages for hours (docs/decisions/crawl-api.md, "robots.txt").
 */
export const MAX_CRAWL_DELAY_MS = 30_000;

export interface IntakeOutcome {
  applied: number;
  /** Results for a claim that is no longer current (redelivery, reclaimed lease): ignored. */
  stale: number;
  /** Crawls that may have new frontier work. */
  crawlsWithNewWork: string[];
  /** Crawls this batch ended: workers should skip their tasks that have not started. */
  crawlsEnded: string[];
  /** Kept pages whose content this batch marked `failed`, and why. */
  contentFailures: ContentFailure[];
}

/** A kept page whose content ended `failed`, with the reason to log (the API has no field for it). */
export interface ContentFailure {
  crawlId: string;
  frontierId: number;
  /**
   * The page's failure (`body_too_large`: over the worker's MAX_BODY_BYTES, `http_503`, …),
   * `spilled_content_lost` (its HTML expired or vanished before it was stored), or `no_html` (not an HTML page).
   */
  reason: string;
}

/**
 * Applies page results to crawls: one transaction per batch, so a result is acknowledged only after
 * its effects commit, and a result applied twice changes nothing (it must answer the row's current
 * attempt while the row is still `dispatched`).
 */
@Injectable()
export class PageResultService {
  constructor(
    private readonly db: Database,
    private readonly results: PageResultRepository,
    private readonly intake: FrontierIntake,
    private readonly knownKeys: KnownFrontierKeys,
    private readonly crawls: CrawlLifecycleRepository,
    private readonly lifecycle: CrawlLifecycleService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
  ) {}

  async apply(batch: CrawlPageResultV1[]): Promise<IntakeOutcome> {
    const byCrawl = new Map<string, CrawlPageResultV1[]>();
    for (const result of batch) {
      const list = byCrawl.get(result.crawl_id) ?? [];
      list.push(result);
      byCrawl.set(result.crawl_id, list);
    }
    const { outcome, charges, inFrontier } = await this.db.transaction(async (sql) => {
      const total: IntakeOutcome = { applied: 0, stale: 0, crawlsWithNewWork: [], crawlsEnded: [], contentFailures: [] };
      // Per attempt of the transaction: a retried one must not count the first attempt's charges.
      const charges: Charge[] = [];
      const inFrontier = new Map<string, Buffer[]>();
      const locked = await this.crawls.lockCrawls(sql, [...byCrawl.keys()]);
      for (const crawl of locked) {
        const wasRunning = crawl.status === 'running';
        const applied = await this.applyToCrawl(sql, crawl, byCrawl.get(crawl.id) ?? [], charges, total.contentFailures);
        if (wasRunning && crawl.status !== 'running') total.crawlsEnded.push(crawl.id);
        total.applied += applied.applied;
        total.stale += applied.stale;
        if (applied.newWork) total.crawlsWithNewWork.push(crawl.id);
        if (applied.inFrontier.length > 0) inFrontier.set(crawl.id, applied.inFrontier);
      }
      // Results of crawls that no longer exist are acknowledged and dropped.
      const known = new Set(locked.map((c) => c.id));
      for (const [crawlId, list] of byCrawl) if (!known.has(crawlId)) total.stale += list.length;
      return { outcome: total, charges, inFrontier };
    });
    for (const [crawlId, keys] of inFrontier) this.knownKeys.remember(crawlId, keys);
    for (const charge of charges) this.metrics.usage.requested(charge.tenantId, 'crawl_page');
    this.metrics.usage.billed(charges);
    this.metrics.resultsApplied.inc(outcome.applied);
    this.metrics.resultsStale.inc(outcome.stale);
    return outcome;
  }

  /**
   * Ends a crawl whose page results cannot be applied (they fail again and again): `failed` with
   * `internal_error`, so one broken crawl neither blocks the others nor runs forever.
   */
  async failCrawl(crawlId: string, detail: string): Promise<void> {
    const ended = await this.db.transaction(async (sql) => {
      const [crawl] = await this.crawls.lockCrawls(sql, [crawlId]);
      if (!crawl || crawl.status !== 'running') return false;
      await this.crawls.finish(sql, crawl, { kind: 'failed', code: 'internal_error', detail });
      return true;
    });
    if (ended) this.metrics.crawlsFinished.inc({ status: 'failed', reason: 'internal_error' });
  }

  private async applyToCrawl(
    sql: Sql,
    crawl: CrawlRow,
    results: CrawlPageResultV1[],
    charges: Charge[],
    contentFailures: ContentFailure[],
  ): Promise<{ applied: number; stale: number; newWork: boolean; inFrontier: Buffer[] }> {
    const rows = new Map<number, DispatchedRow>();
    for (const row of await this.results.frontierRows(
      sql,
      crawl.id,
      results.map((r) => r.frontier_id),
    )) {
      rows.set(row.id, row);
    }
    const current: { result: CrawlPageResultV1; row: DispatchedRow }[] = [];
    const claimed = new Set<number>();
    for (const result of results) {
      const row = rows.get(result.frontier_id);
      if (!row || row.state !== 'dispatched' || row.attempt !== result.attempt || claimed.has(row.id)) continue;
      claimed.add(row.id);
      current.push({ result, row });
    }
    const stale = results.length - current.length;
    if (current.length === 0) return { applied: 0, stale, newWork: false, inFrontier: [] };

    const crawlCharges: Charge[] = [];
    const contents: { frontierId: number; html: string; contentType: string | null }[] = [];
    const states: string[] = [];
    const contentStatus: (string | null)[] = [];
    const outcomes: { outcome: string; error: string | null; cache: CacheStatus | null }[] = [];
    const disallowedLinks: { key: Buffer; url: string; foundOn: number }[] = [];
    let pagesFetched = 0;
    let pagesFailed = 0;
    let robotsDisallowed = 0;
    let seed: SeedOutcome = 'fetched';
    for (const { result, row } of current) {
      const isSeed = row.depth === 0 && row.itemSeq === null;
      outcomes.push({ outcome: result.outcome, error: result.error ?? null, cache: result.cache ?? null });
      for (const url of result.disallowed_links ?? []) disallowedLinks.push({ key: keyOf(url), url, foundOn: row.id });
      if (result.outcome === 'skipped' || result.outcome === 'disallowed') {
        // Not fetched: the crawl ended before the page's task started (no page is fetched after),
        // or robots.txt disallows it (a URL kept before the crawl read its robots.txt, or the start URL).
        states.push('dropped');
        contentStatus.push(row.wantsContent ? 'failed' : null);
        if (result.outcome === 'disallowed') {
          robotsDisallowed++;
          if (isSeed) seed = 'disallowed';
        }
        continue;
      }
      pagesFetched++;
      if (result.outcome !== 'fetched') pagesFailed++;
      if (isSeed && result.outcome !== 'fetched') seed = 'failed';
      crawlCharges.push({
        tenantId: crawl.tenantId,
        credits: result.credits,
        product: 'crawl_page',
        tier: result.tier,
        ref: `crawl:${crawl.id}:${row.id}:${row.attempt}`,
      });
      // Fetched for its HTML only, then met nearer the start: it must be opened, so it goes again.
      const reopen = row.wantsLinks && result.wanted_links === false && result.outcome === 'fetched' && crawl.status === 'running';
      states.push(reopen ? 'queued' : 'done');
      if (row.wantsContent) {
        const html = result.outcome === 'fetched' ? result.content : undefined;
        if (html !== undefined) contents.push({ frontierId: row.id, html, contentType: result.content_type ?? null });
        else contentFailures.push({ crawlId: crawl.id, frontierId: row.id, reason: contentFailureReason(result) });
        contentStatus.push(html !== undefined ? 'fetched' : 'failed');
      } else {
        contentStatus.push(null);
      }
    }
    await this.results.settleRows(
      sql,
      current.map((c) => c.row.id),
      states,
      contentStatus,
      outcomes,
    );
    if (disallowedLinks.length > 0) {
      const room = MAX_SKIPPED_RECORDED - crawl.skippedRecorded;
      crawl.skippedRecorded += await this.results.recordSkipped(sql, crawl.id, 'robots_disallowed', disallowedLinks, room);
    }
    await this.results.insertContents(sql, crawl.id, contents);
    await recordCharges(sql, crawlCharges);
    charges.push(...crawlCharges);

    // Links join the results while the crawl runs, and for the post-stop window after a stop.
    const acceptsLinks =
      crawl.status === 'running' ||
      (crawl.status === 'stopped' && crawl.stoppedAt !== null && Date.now() < crawl.stoppedAt.getTime() + this.settings.stopWindowMs);
    const opened = acceptsLinks ? current.filter(({ result }) => result.opened && result.outcome === 'fetched') : [];
    let duplicates = opened.reduce((sum, { result }) => sum + result.duplicate_links, 0);
    let inserted = 0;
    let newWork = false;
    let inFrontier: Buffer[] = [];
    if (opened.length > 0) {
      const taken = await this.intake.take(
        sql,
        crawl,
        opened.map(({ result, row }) => ({ pageDepth: row.depth, pageId: row.id, links: result.links })),
      );
      duplicates += taken.duplicates;
      inserted = taken.inserted;
      newWork = taken.newWork;
      inFrontier = taken.inFrontier;
    }
    newWork ||= states.includes('queued');
    const delays = current.map(({ result }) => result.crawl_delay_ms).filter((delay): delay is number => delay !== undefined);
    await this.results.addCoverage(sql, crawl.id, {
      pagesFetched,
      pagesFailed,
      itemsFound: inserted,
      duplicates,
      robotsDisallowed: robotsDisallowed + current.reduce((sum, { result }) => sum + (result.robots_disallowed ?? 0), 0),
      crawlDelayMs: delays.length === 0 ? undefined : Math.min(MAX_CRAWL_DELAY_MS, Math.max(...delays)),
    });
    const verdict = await this.lifecycle.settle(sql, crawl, seed);
    return { applied: current.length, stale, newWork: newWork && verdict.kind === 'continue', inFrontier };
  }
}

/** Why a kept page's result brought no HTML. */
export function contentFailureReason(result: CrawlPageResultV1): string {
  if (result.outcome !== 'fetched') return result.error ?? result.outcome;
  // The worker spilled it, and it could not be read back (see SpilledContents.load).
  if (result.content_ref) return 'spilled_content_lost';
  return 'no_html';
}
