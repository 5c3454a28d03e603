import type { Provider } from '@nestjs/common';
import type { Agent } from 'undici';
import type { MessagingTopology } from '@trawl/contracts';
import type { EgressPolicy } from '@trawl/egress';
import { maxPayloadBytes, messageRoomBytes, type MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import type { StopDeadlines } from '@trawl/service-kit';
import type { Registry } from 'prom-client';
import { readFileSync } from 'node:fs';
import { BrowserPool, registerBrowserPoolMetrics } from '../browser';
import { trustedKeysFlags } from '../browser/trusted-keys';
import { CaptchaPass } from '../captcha/captcha-pass';
import { EgressProxy } from '../egress-proxy';
import { CaptchaSolverClient } from '../captcha/captcha-solver.client';
import type { FetchWorkerConfig } from '../config';
import type { IdentityGenerator } from '../identity';
import type { HttpEngine } from '../page-fetch/http-engine';
import { NatsSessionBindings, parseProxyPools, ProxyRouter, UpstreamAgents } from '../proxies';
import { AdaptiveFetcher, CachedDomainTierMemory, NatsDomainTierMemory } from '../stealth';
import { extractionTransforms } from './extraction-transforms';
import { BrowserFetchEngine } from '../target-fetch/browser-fetch-engine';
import type { FetchEngineSet } from '../target-fetch/fetch-engine.router';
import { FetchRequestMetrics } from './fetch-request.metrics';
import { FETCH_REQUEST_SERVER_SETTINGS, FetchRequestServer, FetchRequestServerSettings } from './fetch-request.server';
import {
  EXTRACT_RECIPES,
  FETCH_REQUEST_SETTINGS,
  PAGE_COPIES,
  CHANGE_TRACKER,
  FetchRequestService,
  FetchRequestSettings,
  PAGE_TRANSFORMS,
} from './fetch-request.service';
import { KvRecipeSource } from './extract-recipes';
import { NatsPageCopies, PageCopyCache, PageCopyMetrics, SubjectSlots } from '../page-copies';
import { ChangeTracker } from '../page-versions';
import { HttpFetchEngine } from '../target-fetch/http-fetch-engine';
import { fetchRequestBuckets } from './kv-buckets';
import { domainTierMemoryOnFirstUse, hostRecordsOnFirstUse, sessionBindingsOnFirstUse } from './lazy-kv';
import { isLimited, NatsHostRecords, PoliteFetchEngine, PolitenessMetrics, SharedHostGate, type HostRecords } from '../politeness';
import type { FetchEngine } from '../target-fetch/fetch-engine';
import { TargetFetcher } from '../target-fetch/target-fetcher';

/** What the Fetch API shares with the rest of the worker. */
export interface FetchRequestWiringDeps {
  config: FetchWorkerConfig;
  policy: EgressPolicy;
  /** The worker's egress agent (direct traffic, CAPTCHA solver calls). */
  agent: Agent;
  /** The HTTP engine: one keep-alive pool for every page the worker loads (closed by `close()`). */
  http: HttpEngine;
  /** The browser identities of requests (every engine presents the request's). */
  identities: IdentityGenerator;
  messaging: MessagingConnection;
  topology: MessagingTopology;
  registry: Registry;
  logger: Logger;
  /** Requests in flight may finish until the drain mark; by the settle mark, all are answered. */
  stopDeadlines: StopDeadlines;
}

/** The Fetch API's providers, and what must be closed when the worker stops. */
export interface FetchRequestWiring {
  providers: Provider[];
  /**
   * Closes the browsers, the egress proxy, upstream proxy connections and the HTTP engine's pool.
   * Call after the server and the consumers have stopped.
   */
  close(): Promise<void>;
}

/**
 * Builds the Fetch API of a worker: engines by tier (HTTP now; the browser when Chromium is wired),
 * upstream proxy pools with `session_id` bindings and adaptive stealth's domain memory (both in NATS
 * KV buckets named after `NATS_PREFIX`, shared by every worker), the CAPTCHA solver client, and the
 * streamed request/reply server. Nothing is opened here: KV buckets and Chromium on first use.
 */
export function wireFetchRequests(deps: FetchRequestWiringDeps): FetchRequestWiring {
  const { config, policy, agent, http, messaging, topology, registry, logger } = deps;
  const buckets = fetchRequestBuckets(config.NATS_PREFIX);
  const upstream = new UpstreamAgents(policy);
  const sessions = sessionBindingsOnFirstUse(() =>
    NatsSessionBindings.open(messaging.js, buckets.proxySessions, undefined, topology.replicas),
  );
  const proxies = new ProxyRouter(parseProxyPools(config.PROXY_POOLS), sessions);
  const memory = new CachedDomainTierMemory(
    domainTierMemoryOnFirstUse(() =>
      NatsDomainTierMemory.open(messaging.js, buckets.stealthTiers, config.STEALTH_TIER_TTL_MS, topology.replicas),
    ),
    config.STEALTH_TIER_CACHE_MS,
  );
  const metrics = new FetchRequestMetrics(registry);
  const stealth = new AdaptiveFetcher({
    memory,
    onMemoryError: (error) => logger.warn({ err: error }, 'adaptive stealth could not reach its domain memory'),
    onBlocked: (domain, attempt) => {
      metrics.blockedAttempts.inc({ tier: attempt.tier, reason: attempt.reason });
      logger.debug({ domain, ...attempt }, 'adaptive stealth attempt blocked');
    },
  });
  const browser = browsers(config, policy, logger);
  if (browser) registerBrowserPoolMetrics(registry, browser.pool);
  const engines = politeEngines(
    { http: new HttpFetchEngine(http, upstream), browser: browser && new BrowserFetchEngine(browser.pool) },
    config,
    () => NatsHostRecords.open(messaging.js, buckets.hostPoliteness, topology.replicas),
    registry,
    logger,
  );
  const captcha = new CaptchaPass(new CaptchaSolverClient({ policy, agent, pollIntervalMs: config.CAPTCHA_POLL_INTERVAL_MS }));
  const target = new TargetFetcher({ engines, identities: deps.identities, captcha, proxies, stealth });
  const settings: FetchRequestSettings = { maxBodyBytes: config.MAX_BODY_BYTES };
  const serverSettings: FetchRequestServerSettings = {
    topology,
    capacity: config.FETCH_CONCURRENCY,
    drainMs: deps.stopDeadlines.drainMs,
    stopDeadlineMs: deps.stopDeadlines.settleMs,
  };
  return {
    providers: [
      { provide: FetchRequestMetrics, useValue: metrics },
      { provide: TargetFetcher, useValue: target },
      { provide: PAGE_TRANSFORMS, useValue: extractionTransforms },
      { provide: EXTRACT_RECIPES, useValue: new KvRecipeSource(messaging.js, topology.kv.extractRecipes, topology.replicas) },
      { provide: FETCH_REQUEST_SETTINGS, useValue: settings },
      { provide: PAGE_COPIES, useValue: pageCopies(config, messaging, topology, registry, logger) },
      { provide: CHANGE_TRACKER, useValue: changeTracker(config, messaging, topology, registry, logger) },
      { provide: FETCH_REQUEST_SERVER_SETTINGS, useValue: serverSettings },
      FetchRequestService,
      FetchRequestServer,
    ],
    async close() {
      await browser?.pool.close();
      await browser?.proxy.close();
      await upstream.close();
      await http.close();
    },
  };
}

/** Kept copies of `max_age` requests in the topology's stream, created by the first copy kept. */
function pageCopies(
  config: FetchWorkerConfig,
  messaging: MessagingConnection,
  topology: MessagingTopology,
  registry: Registry,
  logger: Logger,
): PageCopyCache {
  const slots = new SubjectSlots(messaging.js, messaging.jsm, {
    stream: topology.streams.pageCopies,
    subjectPrefix: topology.subjects.pageCopyPrefix,
    maxBytes: config.PAGE_COPY_MAX_BYTES,
    ttlMs: config.PAGE_COPY_TTL_MS,
    replicas: topology.replicas,
  });
  // A copy is one message: it must fit NATS's max_payload beside its headers.
  const store = new NatsPageCopies(slots, Math.min(config.PAGE_COPY_MAX_ENTRY_BYTES, messageRoomBytes(messaging.nc)));
  return new PageCopyCache(store, new PageCopyMetrics(registry), logger);
}

/** `change_tracking`'s page versions in the topology's stream, created by the first tracked page. */
function changeTracker(
  config: FetchWorkerConfig,
  messaging: MessagingConnection,
  topology: MessagingTopology,
  registry: Registry,
  logger: Logger,
): ChangeTracker {
  const slots = new SubjectSlots(messaging.js, messaging.jsm, {
    stream: topology.streams.pageVersions,
    subjectPrefix: topology.subjects.pageVersionPrefix,
    maxBytes: config.PAGE_VERSION_MAX_BYTES,
    ttlMs: config.PAGE_VERSION_TTL_MS,
    replicas: topology.replicas,
  });
  // A version is one message: its JSON (escapes can double a text) must fit NATS's max_payload.
  return new ChangeTracker(slots, Math.floor(maxPayloadBytes(messaging.nc) / 2) - 16 * 1024, registry, logger);
}

/**
 * The engines behind the per-host gate (HOST_CONCURRENCY_LIMIT, HOST_RATE_LIMIT, HOST_BACKOFF*),
 * shared by the Fetch API, batch tasks and crawl pages; as they are when every one of those is off.
 */
function politeEngines(
  engines: FetchEngineSet,
  config: FetchWorkerConfig,
  openRecords: () => Promise<HostRecords>,
  registry: Registry,
  logger: Logger,
): FetchEngineSet {
  const limits = { concurrency: config.HOST_CONCURRENCY_LIMIT, ratePerSecond: config.HOST_RATE_LIMIT };
  const backoff = { enabled: config.HOST_BACKOFF, baseMs: config.HOST_BACKOFF_BASE_MS, maxMs: config.HOST_BACKOFF_MAX_MS };
  if (!backoff.enabled && !isLimited(limits)) return engines;
  const metrics = new PolitenessMetrics(registry);
  const gate = new SharedHostGate(hostRecordsOnFirstUse(openRecords), { limits, backoff }, metrics, logger);
  const polite = (engine: FetchEngine): FetchEngine => new PoliteFetchEngine(engine, gate, { retryAfterPause: backoff.enabled }, metrics);
  return { http: polite(engines.http), browser: engines.browser && polite(engines.browser) };
}

/**
 * The browser pool of the rendering tiers, every page's traffic through an egress proxy of its own
 * (ARCHITECTURE §3 "Egress"); none when `BROWSERS=0`. Chromium is launched by the first rendering
 * request (`BrowserFetchEngine`), not here.
 */
function browsers(config: FetchWorkerConfig, policy: EgressPolicy, logger: Logger): { pool: BrowserPool; proxy: EgressProxy } | undefined {
  if (config.BROWSERS === 0) return undefined;
  const proxy = new EgressProxy({ policy, maxBytesPerRequest: config.BROWSER_MAX_PAGE_BYTES });
  const pool = new BrowserPool({
    proxy,
    executablePath: config.CHROMIUM_PATH,
    launch: { extraArgs: config.TLS_EXTRA_CA_FILE ? trustedKeysFlags(readFileSync(config.TLS_EXTRA_CA_FILE, 'utf8')) : [] },
    browsers: config.BROWSERS,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    retireAfterPages: config.BROWSER_RETIRE_AFTER_PAGES,
    reuse: { enabled: config.BROWSER_PAGE_REUSE, idleMs: config.BROWSER_PAGE_IDLE_MS, maxUses: config.BROWSER_PAGE_MAX_USES },
    logger,
  });
  return { pool, proxy };
}
