import pino from 'pino';
import { Registry } from 'prom-client';
import { crawlMessagingDefinitions, CrawlPageTaskV1, crawlWorkMessageV1, messagingTopology, PAGES_HEADER } from '@trawl/contracts';
import { deleteStreams, ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createDataSource, Database } from '@trawl/persistence';
import { stopDeadlinesOf } from '@trawl/service-kit';
import { createMigratedDatabase, TestDatabase, uniqueSuffix } from '@trawl/testing';
import { CoordinatorMetrics } from '../../src/coordinator.metrics';
import { CoordinatorSettings } from '../../src/coordinator.settings';
import { CrawlLifecycleRepository } from '../../src/crawl-lifecycle/crawl-lifecycle.repository';
import { CrawlLifecycleService } from '../../src/crawl-lifecycle/crawl-lifecycle.service';
import { ReconcilerService } from '../../src/crawl-lifecycle/reconciler.service';
import { DispatcherService } from '../../src/frontier/dispatcher.service';
import { ClaimedPage, FrontierRepository } from '../../src/frontier/frontier.repository';
import { PageResultRepository } from '../../src/page-results/page-result.repository';
import { FrontierIntake } from '../../src/page-results/frontier-intake';
import { KnownFrontierKeys } from '../../src/page-results/known-frontier-keys';
import { PageResultService } from '../../src/page-results/page-result.service';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Settings for tests: a wide dispatch window, leases long enough never to run out by themselves. */
export type TestSettings = Partial<Omit<CoordinatorSettings, 'topology'>>;

/**
 * The coordinator's services built by hand (no Nest) on a fresh migrated database of their own.
 * One per test file; tests isolate themselves by creating their own tenant and crawl.
 */
export class CoordinatorHarness {
  readonly frontier = new FrontierRepository();
  readonly crawls = new CrawlLifecycleRepository();
  readonly registry = new Registry();
  readonly metrics = new CoordinatorMetrics(this.registry);
  /** What the harness's intake remembers of its crawls' frontiers (as a coordinator replica does). */
  readonly knownKeys = new KnownFrontierKeys(200_000);
  readonly lifecycle: CrawlLifecycleService;
  readonly results: PageResultService;
  /** Set by `connectMessaging()`. */
  messaging?: MessagingConnection;

  private constructor(
    private readonly testDb: TestDatabase,
    readonly db: Database,
    readonly settings: CoordinatorSettings,
  ) {
    this.lifecycle = new CrawlLifecycleService(this.crawls, this.metrics);
    const repository = new PageResultRepository();
    this.results = new PageResultService(
      db,
      repository,
      new FrontierIntake(repository, this.knownKeys),
      this.knownKeys,
      this.crawls,
      this.lifecycle,
      this.metrics,
      settings,
    );
  }

  static async start(overrides: TestSettings = {}): Promise<CoordinatorHarness> {
    const testDb = await createMigratedDatabase();
    const dataSource = await createDataSource({ url: testDb.url, poolSize: 12 }).initialize();
    const settings: CoordinatorSettings = {
      topology: messagingTopology(`cc${uniqueSuffix()}`),
      dispatchWindow: 1_000,
      dispatchPerCrawl: 100,
      pagesPerTaskMessage: 8,
      leaseMs: 600_000,
      maxAttempts: 3,
      stopWindowMs: 600_000,
      reconcileIntervalMs: 60_000,
      dispatchPollMs: 60_000,
      resultBatch: 64,
      resultWaitMs: 50,
      sitemapPollMs: 60_000,
      sitemapTimeoutMs: 30_000,
      stopDeadlines: stopDeadlinesOf(10_000),
      ...overrides,
    };
    return new CoordinatorHarness(testDb, new Database(dataSource), settings);
  }

  /** Connects to NATS and provisions this harness's own crawl streams (removed by `close()`). */
  async connectMessaging(): Promise<MessagingConnection> {
    const messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'crawl-coordinator-test' });
    this.messaging = messaging;
    const definitions = crawlMessagingDefinitions(this.settings.topology);
    for (const stream of definitions.streams) await ensureStream(messaging.jsm, stream);
    for (const consumer of definitions.consumers) await ensureConsumer(messaging.jsm, consumer);
    return messaging;
  }

  /** The harness's database URL (for a second connection, through a relay). */
  get databaseUrl(): string {
    return this.testDb.url;
  }

  /** A dispatcher on the harness's database, or on `db` (a connection through a relay). */
  dispatcher(db: Database = this.db): DispatcherService {
    return new DispatcherService(db, this.frontier, this.crawls, this.metrics, this.requireMessaging(), this.settings, silentLogger);
  }

  reconciler(): ReconcilerService {
    return new ReconcilerService(
      this.db,
      this.frontier,
      this.crawls,
      this.lifecycle,
      this.metrics,
      this.settings,
      silentLogger,
      this.requireMessaging(),
    );
  }

  /** Claims up to `limit` queued pages of a crawl, as a dispatch round does (new attempt, lease). */
  async claim(crawlId: string, limit = 100): Promise<ClaimedPage[]> {
    return this.db.transaction((sql) => this.frontier.claim(sql, crawlId, limit, this.settings.leaseMs));
  }

  /** Makes the leases of these pages run out now, as if their worker died long ago. */
  async expireLeases(frontierIds: number[]): Promise<void> {
    await this.db.query(
      `UPDATE crawl_frontier SET lease_until = now() - interval '1 second' WHERE id = ANY($1::bigint[]) AND state = 'dispatched'`,
      [frontierIds],
    );
  }

  /**
   * Page tasks published to this harness's work stream for one crawl, in order, with the
   * `Nats-Msg-Id` and page count (`Trawl-Pages`, 1 for a page sent alone) of the message each came in.
   */
  async publishedTasks(crawlId: string): Promise<{ task: CrawlPageTaskV1; msgId: string | undefined; pages: number }[]> {
    const { jsm } = this.requireMessaging();
    const stream = this.settings.topology.streams.crawlWork;
    const { state } = await jsm.streams.info(stream);
    const tasks: { task: CrawlPageTaskV1; msgId: string | undefined; pages: number }[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq });
      if (!message) continue;
      const work = crawlWorkMessageV1.parse(message.json());
      const carried = 'tasks' in work ? work.tasks : [work];
      const msgId = message.header?.get('Nats-Msg-Id') || undefined;
      const pages = Number(message.header?.get(PAGES_HEADER) || 1);
      for (const task of carried) if (task.crawl_id === crawlId) tasks.push({ task, msgId, pages });
    }
    return tasks;
  }

  async close(): Promise<void> {
    if (this.messaging) {
      await deleteStreams(this.messaging.jsm, Object.values(this.settings.topology.streams)).catch(() => undefined);
      await this.messaging.close();
    }
    await this.db.dataSource.destroy();
    await this.testDb.drop();
  }

  private requireMessaging(): MessagingConnection {
    if (!this.messaging) throw new Error('call connectMessaging() first');
    return this.messaging;
  }
}

const silentLogger = pino({ level: 'silent' });
