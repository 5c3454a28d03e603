import { Injectable } from '@nestjs/common';
import { currentTraceParent } from '@trawl/observability';
import { ActiveJobsRepository, Database } from '@trawl/persistence';
import { IdempotencyClaim, IdempotencyService } from '../idempotency/idempotency.service';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { decodeListCursor, decodeResultsCursor, encodeListCursor, encodeResultsCursor, isCrawlId } from './crawl-cursor';
import { CrawlKicks } from './crawl-kicks';
import type { CrawlUrlFateResource, StartCrawlBody } from '@trawl/contracts/http';
import { createHash } from 'node:crypto';
import { normalizeUrl, urlKey } from '@trawl/egress';
import { urlFate } from './crawl-url-fate';
import { effectiveSettings } from './crawl-request.schema';
import { CrawlError, CrawlErrorCode } from './crawls.errors';
import { CrawlRecord, CrawlResultRecord, CrawlsRepository, DownloadRecord } from './crawls.repository';
import { nextResultsSeq, POST_STOP_WINDOW_MINUTES } from './next-cursor';
import { StartUrlCheck } from './start-url';

/** Scope of crawl starts in `idempotency_keys`. */
export const CREATE_CRAWL_IDEMPOTENCY_SCOPE = 'crawls.create';

/** Results per download query: keyset pages, so a 100,000-URL crawl is never one giant query. */
const DOWNLOAD_PAGE_SIZE = 1_000;
/** With page HTML in the lines, smaller pages keep the memory of one page bounded. */
const DOWNLOAD_PAGE_SIZE_WITH_CONTENT = 50;

export interface CrawlPage {
  crawl: CrawlRecord;
  results: CrawlResultRecord[];
  nextCursor: string | null;
}

export interface CrawlList {
  crawls: CrawlRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

@Injectable()
export class CrawlsService {
  constructor(
    private readonly db: Database,
    private readonly crawls: CrawlsRepository,
    private readonly startUrls: StartUrlCheck,
    private readonly idempotency: IdempotencyService,
    private readonly kicks: CrawlKicks,
    private readonly activeJobs: ActiveJobsRepository,
  ) {}

  /**
   * Starts a crawl: checks the start URL, then in one transaction takes the tenant's lock, checks
   * its active-job limit and writes the crawl with its start URL. A refused request starts nothing,
   * costs nothing and gives its `Idempotency-Key` back.
   *
   * @throws CrawlError `invalid_start_url`, `too_many_crawls`; IdempotencyError.
   */
  async start(tenantId: string, body: StartCrawlBody, idempotencyKey: string | undefined): Promise<CrawlRecord> {
    let claim: IdempotencyClaim | undefined;
    if (idempotencyKey !== undefined) {
      const outcome = await this.idempotency.begin({ tenantId, scope: CREATE_CRAWL_IDEMPOTENCY_SCOPE, key: idempotencyKey }, body);
      if (outcome.kind === 'replay') return this.get(tenantId, outcome.resourceId);
      claim = outcome.claim;
    }
    try {
      const startUrl = await this.startUrls.check(body.url);
      const settings = effectiveSettings(body, startUrl.href);
      const crawl = await this.db.transaction(async (sql) => {
        const quota = await this.activeJobs.lockTenantAndCount(sql, tenantId);
        if (!quota) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
        // Only `running` crawls count (a stopped crawl's post-stop window fetches nothing new), and
        // batch runs in flight: one limit for both (architecture §3).
        if (quota.active >= quota.maxActiveJobs) {
          throw new CrawlError(
            CrawlErrorCode.TooManyCrawls,
            `Your account already runs ${quota.active} of its ${quota.maxActiveJobs} active jobs; retry when one ends.`,
          );
        }
        const created = await this.crawls.insert(sql, {
          tenantId,
          settings,
          scopeDomain: startUrl.scopeDomain,
          traceParent: currentTraceParent(),
        });
        await this.crawls.insertStartUrl(sql, created.id, startUrl.href, startUrl.urlKey, settings.sitemap !== 'only');
        if (claim) await this.idempotency.complete(sql, claim, created.id);
        return created;
      });
      this.kicks.kick(crawl.id);
      return crawl;
    } catch (error) {
      // A key we cannot release turns stale and is taken over by the next retry (after 60 s).
      if (claim) await this.idempotency.release(claim).catch(() => undefined);
      throw error;
    }
  }

  /** @throws CrawlError `crawl_not_found` (also for another tenant's crawl, or a malformed id). */
  /**
   * Where `url` went in the crawl (docs/decisions/crawl-api.md, "Where each URL went").
   * @throws CrawlError `crawl_not_found`; RequestError `invalid_parameter` for a `url` that is not an http(s) URL.
   */
  async urlFate(tenantId: string, crawlId: string, url: string): Promise<CrawlUrlFateResource> {
    const crawl = await this.get(tenantId, crawlId);
    const normalized = normalizeUrl(url);
    if (normalized === null) {
      throw new RequestError(RequestErrorCode.InvalidParameter, '`url` must be an http or https URL of at most 2,048 characters.', {
        parameter: 'url',
      });
    }
    const trace = await this.crawls.urlTrace(tenantId, crawl.id, keyOfUrl(normalized));
    return urlFate(url, normalized, trace, { ...crawl, ended: crawl.status !== 'running' });
  }

  async get(tenantId: string, crawlId: string): Promise<CrawlRecord> {
    const crawl = isCrawlId(crawlId) ? await this.crawls.find(tenantId, crawlId) : undefined;
    if (!crawl) throw crawlNotFound();
    return crawl;
  }

  /**
   * The crawl and one page of results after `cursor`. Reads the crawl row (and whether pages are in
   * flight after a stop) BEFORE the results: every result committed before the crawl ended is then
   * visible to the results read, so `next_cursor` is `null` only once nothing more can appear.
   *
   * @throws RequestError `invalid_request` (not a cursor); CrawlError `crawl_not_found`, `invalid_cursor`.
   */
  async read(tenantId: string, crawlId: string, cursorToken: string | undefined, limit: number): Promise<CrawlPage> {
    const cursor = cursorToken === undefined ? undefined : decodeResultsCursor(cursorToken);
    if (cursorToken !== undefined && !cursor) throw invalidCursorToken();
    const found = isCrawlId(crawlId) ? await this.crawls.findWithPagesInFlight(tenantId, crawlId, POST_STOP_WINDOW_MINUTES) : undefined;
    if (!found) throw crawlNotFound();
    if (cursor && cursor.crawlId !== crawlId) {
      throw new CrawlError(CrawlErrorCode.InvalidCursor, 'This cursor belongs to another crawl; use the `next_cursor` of this crawl.');
    }
    const afterSeq = cursor?.seq ?? 0;
    // One row more than asked tells whether the read reached the end.
    const rows = await this.crawls.resultsPage(tenantId, crawlId, afterSeq, limit + 1);
    const results = rows.slice(0, limit);
    const nextSeq = nextResultsSeq({
      running: found.crawl.status === 'running',
      pagesInFlight: found.pagesInFlight,
      reachedEnd: rows.length <= limit,
      lastSeq: results.at(-1)?.seq ?? afterSeq,
    });
    return {
      crawl: found.crawl,
      results,
      nextCursor: nextSeq === null ? null : encodeResultsCursor({ crawlId, seq: nextSeq }),
    };
  }

  /** The tenant's crawls, newest first. @throws RequestError `invalid_request` (not a list cursor). */
  async list(tenantId: string, cursorToken: string | undefined, limit: number): Promise<CrawlList> {
    const cursor = cursorToken === undefined ? undefined : decodeListCursor(cursorToken);
    if (cursorToken !== undefined && !cursor) throw invalidCursorToken();
    const rows = await this.crawls.listPage(tenantId, cursor, limit + 1);
    const crawls = rows.slice(0, limit);
    const last = crawls.at(-1);
    return {
      crawls,
      ...(rows.length > limit && last && { nextCursor: encodeListCursor({ createdAtMicros: last.createdAtMicros, crawlId: last.id }) }),
    };
  }

  /** Every result in order, read in keyset pages as the consumer pulls (the download streams it). */
  async *allResults(tenantId: string, crawl: CrawlRecord): AsyncGenerator<DownloadRecord[]> {
    const withContent = crawl.outputFormat !== null;
    const pageSize = withContent ? DOWNLOAD_PAGE_SIZE_WITH_CONTENT : DOWNLOAD_PAGE_SIZE;
    for (let afterSeq = 0; ;) {
      const page = await this.crawls.downloadPage(tenantId, crawl.id, afterSeq, pageSize, withContent);
      if (page.length > 0) yield page;
      const last = page.at(-1);
      if (!last || page.length < pageSize) return;
      afterSeq = last.seq;
    }
  }

  /**
   * The HTML of a kept page. @throws CrawlError `crawl_not_found`; `content_not_found` when the page
   * is not fetched (yet), failed, is not a result, or the crawl has no `output_format`.
   */
  async content(tenantId: string, crawlId: string, contentId: string): Promise<string> {
    await this.get(tenantId, crawlId);
    const html = /^[1-9]\d{0,17}$/.test(contentId) ? await this.crawls.findContent(tenantId, crawlId, contentId) : undefined;
    if (html === undefined) {
      throw new CrawlError(
        CrawlErrorCode.ContentNotFound,
        'No HTML is kept for this page: it is not fetched yet, its fetch failed, or the crawl has no `output_format`.',
      );
    }
    return html;
  }

  /** Stops a running crawl; an ended crawl is returned unchanged. @throws CrawlError `crawl_not_found`. */
  async stop(tenantId: string, crawlId: string): Promise<CrawlRecord> {
    if (!isCrawlId(crawlId)) throw crawlNotFound();
    const stopped = await this.crawls.stopRunning(tenantId, crawlId);
    if (!stopped) return this.get(tenantId, crawlId);
    this.kicks.stopped(crawlId);
    return stopped;
  }
}

function crawlNotFound(): CrawlError {
  return new CrawlError(CrawlErrorCode.CrawlNotFound, 'Your account has no crawl with this ID; check the `crawl_id`.');
}

function invalidCursorToken(): RequestError {
  return new RequestError(RequestErrorCode.InvalidRequest, '`cursor` is not a cursor this endpoint issued; pass `next_cursor` unchanged.', {
    parameter: 'cursor',
  });
}

/** md5 of a normalised URL's dedup key: the frontier's `url_key`. */
function keyOfUrl(normalized: string): Buffer {
  return createHash('md5').update(urlKey(normalized), 'utf8').digest();
}
