import { setTimeout as sleep } from 'node:timers/promises';
import { TrawlClient, type Crawl, type JobRun, type TaskResult } from '@trawl/sdk';

/** The test web as the platform reaches it (values.yaml's EGRESS_HOST_MAP names its Service). */
export const SITE = 'http://site.proof.test';
export const HOOKS = 'https://hooks.proof.test';

/** Path of the test web's site of `pages` pages answered after `delayMs`: page n links to 10n+1…10n+10. */
export function sitePage(pages: number, delayMs: number, n: number): string {
  return `${SITE}/site/${pages}/${delayMs}/p/${n}`;
}

export function siteUrls(pages: number, delayMs: number): Set<string> {
  return new Set(Array.from({ length: pages }, (_, n) => sitePage(pages, delayMs, n)));
}

/** A crawl of the whole site from page 0, limits above its size so that only the site bounds it. */
export function startSiteCrawl(client: TrawlClient, pages: number, delayMs: number): Promise<Crawl> {
  return client.crawls.start({ url: sitePage(pages, delayMs, 0), max_items: pages * 2, max_pages: pages * 2 });
}

/** Polls a crawl until its pages fetched reach `pages`·fraction (to act "in the middle" of it). */
export async function crawlProgress(client: TrawlClient, crawlId: string, atLeast: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.crawls.get(crawlId, { limit: 1 });
    if (page.coverage.pages_fetched >= atLeast || page.status !== 'running') return page.coverage.pages_fetched;
    if (Date.now() > deadline)
      throw new Error(`crawl ${crawlId} fetched ${page.coverage.pages_fetched} pages, not ${atLeast}, within the deadline`);
    await sleep(250);
  }
}

/**
 * Waits for the crawl to end, then checks what a user would: completed, every page of the site but
 * the start URL (which a crawl never returns) in the results exactly once and nothing else, every
 * page opened, and (unless a pod was lost, whose work in flight is fetched again) no page fetched
 * twice (`hits`: the test web's count per page, read after the end).
 * Returns a one-line summary.
 */
export async function expectWholeSite(
  client: TrawlClient,
  crawlId: string,
  site: { pages: number; delayMs: number; refetchAllowed: boolean },
  timeoutMs: number,
  hits: () => Promise<Record<string, number>>,
): Promise<string> {
  const end = await client.crawls.waitFor(crawlId, { timeoutMs, pollIntervalMs: 500 });
  if (end.status !== 'completed')
    throw new Error(`crawl ${crawlId} ended ${end.status}${end.error ? ` (${end.error.code}: ${end.error.detail})` : ''}`);
  const expected = siteUrls(site.pages, site.delayMs);
  expected.delete(sitePage(site.pages, site.delayMs, 0));
  const seen = new Map<string, number>();
  for await (const result of client.crawls.results(crawlId)) seen.set(result.url, (seen.get(result.url) ?? 0) + 1);
  const repeated = [...seen].filter(([, count]) => count > 1);
  const missing = [...expected].filter((url) => !seen.has(url));
  const foreign = [...seen.keys()].filter((url) => !expected.has(url));
  const served = await hits();
  const prefix = new URL(sitePage(site.pages, site.delayMs, 0)).pathname.replace(/\d+$/, '');
  const fetches = Object.entries(served).filter(([path]) => path.startsWith(prefix));
  const refetched = fetches.filter(([, count]) => count > 1).length;
  const problems = [
    repeated.length && `${repeated.length} pages more than once (e.g. ${repeated[0][0]} ×${repeated[0][1]})`,
    missing.length && `${missing.length} pages missing (e.g. ${missing[0]})`,
    foreign.length && `${foreign.length} URLs not of the site (e.g. ${foreign[0]})`,
    end.coverage.pages_fetched !== site.pages && `${end.coverage.pages_fetched} pages opened, not ${site.pages}`,
    fetches.length !== site.pages && `the site served ${fetches.length} distinct pages, not ${site.pages}`,
    !site.refetchAllowed && refetched > 0 && `${refetched} pages fetched more than once with no pod lost`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`crawl ${crawlId}: ${problems.join('; ')}`);
  return (
    `${seen.size} results (all pages but the start) each once, ${end.coverage.pages_fetched} pages opened, ` +
    `${end.duplicates_removed} duplicate links dropped; ${refetched} pages fetched again after a redelivery`
  );
}

/** A closed batch job of the site's pages 1…tasks (one task each), optionally with a signed webhook. */
export async function startBatch(client: TrawlClient, tasks: number, delayMs: number, webhookUrl?: string): Promise<string> {
  const job = await client.jobs.create({
    type: 'regular',
    status: 'closed',
    service_params: {},
    tasks: Array.from({ length: tasks }, (_, i) => ({ url: sitePage(tasks + 1, delayMs, i + 1), external_id: `page-${i + 1}` })),
    ...(webhookUrl ? { webhook: { url: webhookUrl, signature: true } } : {}),
  });
  return job.job_id;
}

export async function batchProgress(client: TrawlClient, jobId: string, atLeast: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = (await client.jobs.get(jobId)).latest_run;
    const done = run?.stats.completed ?? 0;
    if (done >= atLeast || (run && run.status !== 'running' && run.status !== 'queued')) return done;
    if (Date.now() > deadline) throw new Error(`job ${jobId} completed ${done} tasks, not ${atLeast}, within the deadline`);
    await sleep(250);
  }
}

/** Waits for the job's run to end; checks it completed with one successful result per task, exactly. */
export async function expectWholeBatch(
  client: TrawlClient,
  jobId: string,
  tasks: number,
  timeoutMs: number,
): Promise<{ run: JobRun; summary: string }> {
  const run = await client.jobs.waitForRun(jobId, undefined, { timeoutMs, pollIntervalMs: 500 });
  if (run.status !== 'completed') throw new Error(`job ${jobId}'s run ended ${run.status}`);
  const byTask = new Map<string, TaskResult[]>();
  for await (const result of client.jobs.results(jobId)) byTask.set(result.task_id, [...(byTask.get(result.task_id) ?? []), result]);
  const repeated = [...byTask.values()].filter((list) => list.length > 1).length;
  const unsuccessful = [...byTask.values()].filter((list) => list.some((r) => r.status !== 'successful')).length;
  const stats = run.stats;
  const problems = [
    byTask.size !== tasks && `${byTask.size} task results, not ${tasks}`,
    repeated && `${repeated} tasks with more than one result`,
    unsuccessful && `${unsuccessful} tasks not successful`,
    (stats.total !== tasks || stats.completed !== tasks || stats.successful !== tasks || stats.failed !== 0) &&
      `stats ${JSON.stringify({ total: stats.total, completed: stats.completed, successful: stats.successful, failed: stats.failed })}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`job ${jobId}: ${problems.join('; ')}`);
  return { run, summary: `${tasks} tasks, one successful result each; stats exact` };
}

/** How a client would take one answer of a Fetch request. */
export type FetchOutcome = 'ok' | 'retryable' | 'failed';

/**
 * A steady Fetch load: `clients` loops, each asking the gateway for a site page over one keep-alive
 * connection pool, as a client library would. An answer a client retries (429, 503, a connection
 * broken before any answer: what the SDK retries) is counted apart from one it would not (any other
 * status, or a wrong body). Stop with `stop()`, which resolves with the tally.
 */
export function fetchLoad(baseUrl: string, apiKey: string, clients: number) {
  const tally = { ok: 0, retryable: 0, failed: 0, examples: { retryable: [] as string[], failed: [] as string[] } };
  let running = true;
  const loop = async (id: number) => {
    for (let i = 0; running; i++) {
      const target = sitePage(100, 0, (id * 7 + i) % 100);
      const outcome = await fetchOnce(`${baseUrl}/v1/?apikey=${apiKey}&url=${encodeURIComponent(target)}`, `Page ${(id * 7 + i) % 100}`);
      tally[outcome.kind]++;
      if (outcome.kind !== 'ok' && tally.examples[outcome.kind].length < 10) {
        tally.examples[outcome.kind].push(`${new Date().toISOString()} ${outcome.detail}`);
      }
      if (outcome.kind !== 'ok') await sleep(100);
    }
  };
  const loops = Array.from({ length: clients }, (_, id) => loop(id));
  return {
    tally,
    async stop() {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

async function fetchOnce(url: string, marker: string): Promise<{ kind: FetchOutcome; detail: string }> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    // A connection refused, reset or closed before any answer: the SDK retries these for a GET.
    return { kind: (error as Error).name === 'TimeoutError' ? 'failed' : 'retryable', detail: `no answer (${detail})` };
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    return { kind: 'failed', detail: `answer ${response.status} cut off (${(error as Error).message})` };
  }
  if (response.status === 200)
    return body.includes(marker) ? { kind: 'ok', detail: '' } : { kind: 'failed', detail: `200 without the page: ${body.slice(0, 120)}` };
  if (response.status === 429 || response.status === 503) return { kind: 'retryable', detail: `${response.status} ${body.slice(0, 160)}` };
  return { kind: 'failed', detail: `${response.status} ${body.slice(0, 200)}` };
}
