import { randomUUID } from 'node:crypto';
import type {
  Crawl,
  CrawlDownloadLine,
  CrawlList,
  CrawlPage,
  CrawlResult,
  CrawlStop,
  CrawlUrlFate,
  ListCrawlsQuery,
  StartCrawlRequest,
} from '../generated/api-types';
import { ndjsonLines } from '../http/ndjson';
import { paginate } from '../http/pagination';
import { sleep, type Transport } from '../http/transport';
import { waitUntil, type WaitOptions } from '../waiting';

/** Options of reading a crawl's results as they come. */
export interface CrawlResultsOptions {
  /** Pause before reading again when nothing new has come yet, in milliseconds [2,000]. */
  pollIntervalMs?: number;
  /** Results per read, 1–1,000 (the API's default when left out). */
  pageSize?: number;
  /** Called with each read's crawl (status and coverage), for progress. */
  onPage?: (crawl: CrawlPage) => void;
  signal?: AbortSignal;
}

export class CrawlsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Starts a crawl (`202`). Sent with an `Idempotency-Key` (one is made when not given), so a retry
   * after a lost answer returns the same crawl and never starts a second one.
   *
   * @throws TrawlApiError `quota_exceeded` (429) at the account's limit of active crawls and jobs.
   */
  start(request: StartCrawlRequest, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Crawl> {
    return this.transport.json<Crawl>({
      method: 'POST',
      path: '/v1/crawls',
      json: request,
      headers: { 'idempotency-key': options.idempotencyKey ?? randomUUID() },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** The crawl with its status, coverage and (from `cursor`) one page of results. */
  get(crawlId: string, query: { cursor?: string; limit?: number } = {}, options: { signal?: AbortSignal } = {}): Promise<CrawlPage> {
    return this.transport.json<CrawlPage>({
      method: 'GET',
      path: `/v1/crawls/${encodeURIComponent(crawlId)}`,
      query,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Where `url` went in the crawl: kept, a duplicate of which result, excluded by which pattern,
   * out of scope, over `max_items`, disallowed by robots.txt, or not seen; a kept page's fetch.
   */
  url(crawlId: string, url: string, options: { signal?: AbortSignal } = {}): Promise<CrawlUrlFate> {
    return this.transport.json<CrawlUrlFate>({
      method: 'GET',
      path: `/v1/crawls/${encodeURIComponent(crawlId)}/urls`,
      query: { url },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** Every crawl of the account, newest first, page by page as iterated. */
  list(query: Omit<ListCrawlsQuery, 'cursor'> = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<Crawl, void, undefined> {
    return paginate(
      (cursor) =>
        this.transport.json<CrawlList>({
          method: 'GET',
          path: '/v1/crawls',
          query: { ...query, cursor },
          retrySafe: true,
          signal: options.signal,
        }),
      (page) => page.crawls,
      (page) => page.next_cursor,
    );
  }

  /**
   * Every result of the crawl, as it finds them: reads with the cursor until the crawl has ended
   * and its last results were read, pausing `pollIntervalMs` whenever nothing new has come. Ends
   * at once for a crawl that has ended.
   */
  async *results(crawlId: string, options: CrawlResultsOptions = {}): AsyncGenerator<CrawlResult, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.get(crawlId, { cursor, limit: options.pageSize }, { signal: options.signal });
      options.onPage?.(page);
      yield* page.results;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
      if (page.results.length === 0) await sleep(options.pollIntervalMs ?? 2_000, options.signal);
    }
  }

  /** The crawl's whole result list as NDJSON lines (with page HTML where kept), streamed. */
  async *download(crawlId: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<CrawlDownloadLine, void, undefined> {
    const response = await this.transport.send({
      method: 'GET',
      path: `/v1/crawls/${encodeURIComponent(crawlId)}/download`,
      retrySafe: true,
      signal: options.signal,
    });
    yield* ndjsonLines<CrawlDownloadLine>(response.body);
  }

  /** The kept HTML of one page (`content_url` of a result, or its content id). */
  async content(crawlId: string, contentId: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    const response = await this.transport.send({
      method: 'GET',
      path: `/v1/crawls/${encodeURIComponent(crawlId)}/contents/${encodeURIComponent(contentId)}`,
      retrySafe: true,
      signal: options.signal,
    });
    return response.text();
  }

  /** Stops the crawl; stopping one that has ended answers its state. */
  stop(crawlId: string, options: { signal?: AbortSignal } = {}): Promise<CrawlStop> {
    return this.transport.json<CrawlStop>({
      method: 'POST',
      path: `/v1/crawls/${encodeURIComponent(crawlId)}/stop`,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Resolves with the crawl once it has ended (`completed`, `stopped` or `failed`), polling its
   * status; `onProgress` hears each poll.
   *
   * @throws TrawlTimeoutError past `timeoutMs`; TrawlAbortError when `signal` aborts.
   */
  waitFor(crawlId: string, options: WaitOptions<CrawlPage> = {}): Promise<CrawlPage> {
    return waitUntil(
      () => this.get(crawlId, { limit: 1 }, { signal: options.signal }),
      (crawl) => crawl.status !== 'running',
      { pollIntervalMs: 2_000, ...options, what: `crawl ${crawlId} to end` },
    );
  }
}
