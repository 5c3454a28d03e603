import { Inject, Injectable } from '@nestjs/common';
import { mapReplyV1, type MapReplyV1, type MapRequestV1 } from '@trawl/contracts';
import { MAP_LIMITS, type MapResultResource } from '@trawl/contracts/http';
import { MessagingError, MessagingErrorCode, StreamedRpcClient } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { PeriodicLoop, SERVICE_LOGGER } from '@trawl/service-kit';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { CrawlLifecycleRepository } from '../crawl-lifecycle/crawl-lifecycle.repository';
import { CrawlLifecycleService } from '../crawl-lifecycle/crawl-lifecycle.service';
import { FrontierIntake } from '../page-results/frontier-intake';
import { PageResultRepository } from '../page-results/page-result.repository';
import { SitemapClaim, SitemapsRepository } from './sitemaps.repository';

/** Token of the streamed request/reply client the seeder asks workers' Map API with. */
export const SEEDER_RPC = Symbol('SEEDER_RPC');

/** Past its read's own time, how long a claim lasts before another coordinator may take the crawl over. */
const CLAIM_MARGIN_MS = 30_000;
/** When every worker was busy (or the read failed inside the service), it is tried again after this long, ms. */
const BUSY_RETRY_MS = 5_000;
/** Reads of a crawl's sitemaps before they count as failed (and the crawl goes on with what it has). */
const MAX_READS = 5;

/** How one read of a crawl's sitemaps ended. */
type SitemapRead = { kind: 'read'; urls: string[]; robotsDisallowed: number } | { kind: 'failed'; detail: string } | { kind: 'retry' };

/**
 * Seeds crawls from their sitemaps (`sitemap: include | only`): claims a crawl whose sitemaps wait,
 * has a worker read them with the Map API's machinery (robots.txt `Sitemap:` lines, else
 * `/sitemap.xml`; indexes, gzip; the crawl's site, subdomains included; what robots.txt disallows
 * left out for a crawl that obeys it), then takes their URLs into the frontier at depth 1 in one
 * transaction, as links of the start page would be: patterns, `max_items` and dedup apply alike.
 * A coordinator that dies mid-read leaves a claim that runs out, and another reads them again;
 * taking them twice changes nothing (dedup by URL key, and the state moves once).
 */
@Injectable()
export class SitemapSeeder {
  private readonly loop: PeriodicLoop;
  private onNewWork: () => void = () => undefined;

  constructor(
    private readonly db: Database,
    private readonly sitemaps: SitemapsRepository,
    private readonly crawls: CrawlLifecycleRepository,
    private readonly results: PageResultRepository,
    private readonly intake: FrontierIntake,
    private readonly lifecycle: CrawlLifecycleService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(SEEDER_RPC) private readonly rpc: StreamedRpcClient,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PeriodicLoop({
      name: 'sitemap seeding',
      intervalMs: settings.sitemapPollMs,
      // A crawl read, another may wait: the next pass goes at once.
      pass: async () => ({ more: await this.seedOne() }),
      logger,
    });
  }

  /** Starts seeding; `onNewWork` is told when a crawl got pages to dispatch. Safe to call twice. */
  start(onNewWork: () => void): void {
    this.onNewWork = onNewWork;
    this.loop.start();
  }

  /** Look for crawls to seed now (a crawl was started) instead of at the next poll. */
  notify(): void {
    this.loop.wake();
  }

  /** Safe to call twice. A read under way is abandoned: its claim runs out and another coordinator reads again. */
  async stop(deadlineMs: number): Promise<void> {
    await this.loop.stop(deadlineMs);
  }

  /** Seeds one crawl; false when none waits. */
  async seedOne(): Promise<boolean> {
    const claim = await this.db.transaction((sql) => this.sitemaps.claimNext(sql, this.settings.sitemapTimeoutMs + CLAIM_MARGIN_MS));
    if (!claim) return false;
    let read = await this.read(claim);
    if (read.kind === 'retry' && claim.attempts >= MAX_READS)
      read = { kind: 'failed', detail: `no worker could read them in ${MAX_READS} tries` };
    if (read.kind === 'retry') {
      await this.db.transaction((sql) => this.sitemaps.retryLater(sql, claim.id, BUSY_RETRY_MS));
      return false;
    }
    const newWork = await this.db.transaction(async (sql) => {
      const [crawl] = await this.crawls.lockCrawls(sql, [claim.id]);
      if (!crawl) return false;
      if (read.kind === 'failed' || crawl.status !== 'running') {
        await this.sitemaps.finish(sql, crawl.id, read.kind === 'failed' ? 'failed' : 'read', 0, 0);
        crawl.sitemapState = read.kind === 'failed' ? 'failed' : 'read';
        if (crawl.status === 'running') await this.lifecycle.settle(sql, crawl);
        return false;
      }
      const taken = await this.intake.take(sql, crawl, [{ pageDepth: 0, pageId: null, links: read.urls }]);
      await this.results.addCoverage(sql, crawl.id, {
        pagesFetched: 0,
        pagesFailed: 0,
        itemsFound: taken.inserted,
        duplicates: taken.duplicates,
      });
      await this.sitemaps.finish(sql, crawl.id, 'read', read.urls.length, read.robotsDisallowed);
      crawl.sitemapState = 'read';
      crawl.sitemapUrls = read.urls.length;
      const verdict = await this.lifecycle.settle(sql, crawl);
      return taken.newWork && verdict.kind === 'continue';
    });
    this.metrics.sitemapsRead.inc({ outcome: read.kind });
    if (read.kind === 'failed') this.logger.info({ crawl_id: claim.id, detail: read.detail }, "the crawl's sitemaps could not be read");
    if (newWork) this.onNewWork();
    return true;
  }

  private async read(claim: SitemapClaim): Promise<SitemapRead> {
    const request: MapRequestV1 = {
      v: 1,
      request_id: `crawl-sitemaps:${claim.id}`,
      tenant_id: claim.tenantId,
      url: claim.url,
      limit: MAP_LIMITS.maxLimit,
      // The crawl's scope: its site, subdomains included (Crawl spec §1).
      include_subdomains: true,
      sitemap: 'only',
      timeout_ms: this.settings.sitemapTimeoutMs,
      ...(claim.respectRobots && { respect_robots: true }),
    };
    let reply: MapReplyV1;
    let body: Buffer;
    try {
      const answer = await this.rpc.call(this.settings.topology.subjects.mapRequest, Buffer.from(JSON.stringify(request)), {
        signal: AbortSignal.timeout(this.settings.sitemapTimeoutMs + CLAIM_MARGIN_MS / 2),
      });
      reply = mapReplyV1.parse(JSON.parse(Buffer.from(answer.head).toString('utf8')));
      body = answer.body;
    } catch (error) {
      const code = error instanceof MessagingError ? error.code : undefined;
      if (code !== MessagingErrorCode.RpcBusy && code !== MessagingErrorCode.RpcNoResponders) {
        this.logger.warn({ err: error, crawl_id: claim.id }, "reading a crawl's sitemaps failed; trying again");
      }
      return { kind: 'retry' };
    }
    if (reply.error?.code === 'internal_error') return { kind: 'retry' };
    if (reply.error) return { kind: 'failed', detail: reply.error.detail };
    const result = JSON.parse(body.toString('utf8')) as MapResultResource;
    return { kind: 'read', urls: result.links.map((link) => link.url), robotsDisallowed: reply.robots_disallowed ?? 0 };
  }
}
