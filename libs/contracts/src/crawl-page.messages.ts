import { z } from 'zod';
import { CACHE_STATUSES, FETCH_TIERS } from './fetch.messages';
import type { MessagingTopology } from './messaging-topology';
import { tasksTogether } from './task-groups';

/**
 * A page a crawl wants fetched. `frontier_id` + `attempt` identify one claim of one frontier URL;
 * the coordinator applies a result only if it answers the current attempt.
 */
export const crawlPageTaskV1 = z.object({
  v: z.literal(1),
  crawl_id: z.string().uuid(),
  tenant_id: z.string().uuid(),
  frontier_id: z.number().int().positive(),
  attempt: z.number().int().positive(),
  url: z.string().url(),
  depth: z.number().int().min(0),
  /** Extract the page's links (the page is opened, not only kept). */
  wants_links: z.boolean(),
  /** Return the page HTML (crawl with `output_format: html`). */
  wants_content: z.boolean(),
  /** Registrable domain the crawl stays on; links elsewhere are not returned. */
  scope_domain: z.string().min(1),
  /**
   * The tiers the tenant's plan lets adaptive stealth use for this page (as `FetchRequestV1.auto_tiers`):
   * each page is a Fetch request in adaptive mode (Crawl spec §1). Absent (a task queued by an
   * older coordinator): `basic` only.
   */
  auto_tiers: z.array(z.enum(FETCH_TIERS)).min(1).optional(),
  /**
   * The crawl obeys robots.txt (`respect_robots`): the page is not fetched when its robots.txt
   * disallows it (outcome `disallowed`), and its disallowed links are left out (`robots_disallowed`).
   */
  respect_robots: z.boolean().optional(),
  /** The page may come from the tenant's copy kept within this many seconds (a crawl with `max_age`); fetched pages are kept. */
  max_age: z.number().int().min(1).optional(),
});
export type CrawlPageTaskV1 = z.infer<typeof crawlPageTaskV1>;

/**
 * `Nats-Msg-Id` of a page task: JetStream drops a second publish of the same claim. The lease's end
 * (epoch ms) is part of it because an attempt number alone can come back: a claim whose COMMIT lost
 * its answer is published all the same, and if it had not committed after all, the page's next
 * claim gets the same attempt; with the same id its task would be dropped as a repeat and wait out
 * the whole lease.
 */
export function crawlPageTaskMsgId(frontierId: number, attempt: number, leaseUntilMs: number): string {
  return `${frontierId}:${attempt}:${leaseUntilMs}`;
}

/**
 * Several pages of one crawl in one message (`taskMessages`), on the same subject as a single task:
 * each page is handled as if it had come alone, and the message is acknowledged once every page's
 * result is stored or the page was handed back alone (docs/decisions/crawl-api.md, "Page tasks
 * travel together").
 */
export const crawlPageTasksV1 = tasksTogether(crawlPageTaskV1);
export type CrawlPageTasksV1 = z.infer<typeof crawlPageTasksV1>;

/** What the work stream carries: one page's task, or several pages' together. */
export const crawlWorkMessageV1 = z.union([crawlPageTaskV1, crawlPageTasksV1]);
export type CrawlWorkMessageV1 = z.infer<typeof crawlWorkMessageV1>;

/** How a page load ended, as far as billing and coverage are concerned. */
export const pageOutcome = z.enum([
  /** The page answered (2xx, or 3xx chain ending in 2xx). */
  'fetched',
  /** The page answered 404 or 410: failed, but billed (Crawl spec §8 rule 2). */
  'failed_billed',
  /** The page could not be loaded (network error, timeout, 5xx, blocked): failed and free. */
  'failed',
  /** Not fetched: the crawl was stopped before the task started (spec §3: no new page after a stop). */
  'skipped',
  /** Not fetched: the crawl obeys robots.txt, and the page's disallows it. Free. */
  'disallowed',
]);
export type PageOutcome = z.infer<typeof pageOutcome>;

/**
 * Where a page's HTML too large for the result message waits: `chunks` messages on
 * `<crawlContentStem(topology, result, id)>.<i>` (i = 0 … chunks − 1) of the crawl bodies stream,
 * `bytes` of UTF-8 in all (`SpilledBodies` of @trawl/messaging writes and reads them). `id` tells
 * apart two answers to the same attempt (a task delivered twice), so one never reads the other's chunks.
 */
export const crawlContentRefV1 = z.object({
  chunks: z.number().int().positive(),
  bytes: z.number().int().positive(),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
export type CrawlContentRefV1 = z.infer<typeof crawlContentRefV1>;

/** Disallowed links of one page a result names; past them they are only counted. */
export const MAX_DISALLOWED_LINKS_TOLD = 100;

export const crawlPageResultV1 = z.object({
  v: z.literal(1),
  crawl_id: z.string().uuid(),
  frontier_id: z.number().int().positive(),
  attempt: z.number().int().positive(),
  outcome: pageOutcome,
  status_code: z.number().int().optional(),
  final_url: z.string().optional(),
  /** Short machine reason for a failure (egress code, `http_503`, …); never a secret. */
  error: z.string().optional(),
  /** Credits this page costs (0 when not billed). */
  credits: z.number().int().min(0),
  /** Tier that served the page, the one `credits` is the price of (`basic` when none served). */
  tier: z.string(),
  /** True when links were extracted (the task asked for them and the page was HTML). */
  opened: z.boolean(),
  /** Echo of the task's `wants_links`: the coordinator re-opens a page whose depth shrank meanwhile. */
  wanted_links: z.boolean().optional(),
  /** Normalised, in-scope, ≤ 2,048-character links, unique within the page, in document order. */
  links: z.array(z.string()),
  /** Links on the page dropped because the same page already listed them. */
  duplicate_links: z.number().int().min(0),
  /** Links left out because robots.txt disallows them (tasks with `respect_robots`). */
  robots_disallowed: z.number().int().min(0).optional(),
  /** The first of them (at most `MAX_DISALLOWED_LINKS_TOLD`), for the crawl to say where they went. */
  disallowed_links: z.array(z.string()).optional(),
  /** The `Crawl-delay` of the page's robots.txt, in ms (tasks with `respect_robots`, when it gives one). */
  crawl_delay_ms: z.number().int().min(0).optional(),
  /** Page HTML (UTF-8), only when the task wanted content and the page was fetched… */
  content: z.string().optional(),
  /**
   * …or, when it is too large for the message, where it waits in chunks. Added after v1 shipped:
   * a coordinator that predates it ignores it and marks the content failed, as it did before.
   */
  content_ref: crawlContentRefV1.optional(),
  content_type: z.string().optional(),
  /**
   * Crawls with `max_age` only: the page came from a kept copy (`hit`) or was fetched now (`miss`).
   * A coordinator that predates it ignores it.
   */
  cache: z.enum(CACHE_STATUSES).optional(),
});
export type CrawlPageResultV1 = z.infer<typeof crawlPageResultV1>;

/**
 * Page results as workers publish them: several per message, because one JetStream publish (and
 * one coordinator ack) per page cost the worker more CPU than the page itself (`make bench`).
 * The coordinator applies a result only for the current attempt of a dispatched row, so a result
 * that arrives twice, in one batch or in two, changes nothing the second time.
 */
export const crawlPageResultBatchV1 = z.object({
  v: z.literal(1),
  results: z.array(crawlPageResultV1).min(1),
});
export type CrawlPageResultBatchV1 = z.infer<typeof crawlPageResultBatchV1>;

/** Core NATS notice that a crawl was stopped (`crawlStopped` subject). */
export const crawlStoppedV1 = z.object({ crawl_id: z.string().uuid() });
export type CrawlStoppedV1 = z.infer<typeof crawlStoppedV1>;

/**
 * Stem of the chunk subjects of one attempt's spilled HTML: chunk `i` of spill `id` is on
 * `<stem>.<id>.<i>`. Purging `<stem>.>` after the commit removes every spill of the attempt.
 */
export function crawlContentStem(
  topology: MessagingTopology,
  result: Pick<CrawlPageResultV1, 'crawl_id' | 'frontier_id' | 'attempt'>,
): string {
  return `${topology.subjects.crawlBodyPrefix}.${result.crawl_id}.${result.frontier_id}.${result.attempt}`;
}

/** Stem of the chunks of one spill of an attempt's HTML (`crawlContentStem` + the ref's `id`). */
export function crawlContentSpillStem(
  topology: MessagingTopology,
  result: Pick<CrawlPageResultV1, 'crawl_id' | 'frontier_id' | 'attempt'>,
  id: string,
): string {
  return `${crawlContentStem(topology, result)}.${id}`;
}
