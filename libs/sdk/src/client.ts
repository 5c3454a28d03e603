import type { CrawlPage, JobRun, MapResult } from './generated/api-types';
import { Transport, type RetryEvent } from './http/transport';
import type { RetryOptions } from './http/retry-policy';
import { AccountResource } from './resources/account';
import { CrawlsResource } from './resources/crawls';
import { ExtractResource } from './resources/extract';
import { FetchResource } from './resources/fetch';
import { JobInputsResource } from './resources/job-inputs';
import { JobsResource } from './resources/jobs';
import { MapResource, type MapOptions } from './resources/map';
import { SigningKeysResource } from './resources/signing-keys';
import type { WaitOptions } from './waiting';

/** How a `TrawlClient` reaches the API (defaults in brackets). */
export interface TrawlClientOptions {
  /** The API key [`TRAWL_API_KEY`]. */
  apiKey?: string;
  /** The installation's API base URL [`TRAWL_BASE_URL`, else `http://localhost:8080`]. */
  baseUrl?: string;
  /** Retries after 429, 503 and broken connections, for calls safe to repeat (see `RetryOptions`). */
  retry?: RetryOptions;
  /** Most Fetch requests in flight at once [5]; lowered to the account's `Concurrency-Limit`. */
  maxConcurrency?: number;
  /** Longest one attempt may take, in milliseconds [200,000]. */
  timeoutMs?: number;
  /** Hears every retry (for logs or a progress line). */
  onRetry?: (event: RetryEvent) => void;
  /** The `fetch` to use [`globalThis.fetch`]. */
  fetch?: typeof fetch;
  /** Appended to the `User-Agent`. */
  userAgent?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

/**
 * The Trawl API: `fetch` (one page, `extract=auto`), `map` (a site's URLs), `crawls`, `jobs`
 * (Batch) with `jobInputs` (CSV) and `signingKeys` (webhooks), `extract` (prepared domains) and
 * `account` (usage).
 *
 * ```ts
 * const trawl = new TrawlClient({ apiKey: process.env.TRAWL_API_KEY });
 * const page = await trawl.fetch.page('https://example.com', { js_render: true });
 * const { links } = await trawl.map('https://example.com', { search: 'pricing' });
 * const crawl = await trawl.crawls.start({ url: 'https://example.com', max_items: 100 });
 * for await (const result of trawl.crawls.results(crawl.crawl_id)) console.log(result.url);
 * ```
 */
export class TrawlClient {
  readonly fetch: FetchResource;
  readonly crawls: CrawlsResource;
  readonly jobs: JobsResource;
  readonly jobInputs: JobInputsResource;
  readonly signingKeys: SigningKeysResource;
  readonly extract: ExtractResource;
  readonly account: AccountResource;
  private readonly maps: MapResource;
  /** The base URL calls go to. */
  readonly baseUrl: string;

  constructor(options: TrawlClientOptions = {}) {
    const apiKey = options.apiKey ?? envOf('TRAWL_API_KEY');
    if (apiKey === undefined || apiKey === '') throw new TypeError('No API key: pass `apiKey` or set TRAWL_API_KEY');
    this.baseUrl = options.baseUrl ?? envOf('TRAWL_BASE_URL') ?? DEFAULT_BASE_URL;
    const transport = new Transport({
      apiKey,
      baseUrl: this.baseUrl,
      retry: options.retry,
      maxConcurrency: options.maxConcurrency,
      timeoutMs: options.timeoutMs,
      onRetry: options.onRetry,
      fetch: options.fetch,
      userAgent: `trawl-sdk-node/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`,
    });
    this.fetch = new FetchResource(transport);
    this.crawls = new CrawlsResource(transport);
    this.jobs = new JobsResource(transport);
    this.jobInputs = new JobInputsResource(transport);
    this.signingKeys = new SigningKeysResource(transport);
    this.extract = new ExtractResource(transport);
    this.account = new AccountResource(transport);
    this.maps = new MapResource(transport);
  }

  /** The URLs of the site at `url`, from its sitemaps and page, without crawling it (`POST /v1/map`). */
  map(url: string, options: MapOptions = {}, call: { signal?: AbortSignal } = {}): Promise<MapResult> {
    return this.maps.site(url, options, call);
  }

  /** Resolves with the crawl once it has ended, polling it (`crawls.waitFor`). */
  waitForCrawl(crawlId: string, options: WaitOptions<CrawlPage> = {}): Promise<CrawlPage> {
    return this.crawls.waitFor(crawlId, options);
  }

  /** Resolves with the run (the job's latest without `runId`) once it has ended (`jobs.waitForRun`). */
  waitForRun(jobId: string, runId?: string, options: WaitOptions<JobRun> = {}): Promise<JobRun> {
    return this.jobs.waitForRun(jobId, runId, options);
  }
}

/** The SDK's version, sent in the `User-Agent`. */
export const SDK_VERSION = '0.1.0';

function envOf(name: string): string | undefined {
  const value = typeof process === 'undefined' ? undefined : process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
