import { parentPort, workerData } from 'node:worker_threads';
import { learnRecipe } from '@trawl/extraction';
import { readPageHtml } from './extract-datasets';

/** What `measureApplyTimes` asks of this thread: each domain's pages, by file. */
export interface LearnJob {
  domains: { domain: string; pages: { url: string; htmlFile: string }[] }[];
}

/**
 * Learns each domain's recipe on a thread of its own and answers their JSON, in the order asked.
 * Recipes are learned by the scheduler, in another process; applying them in the heap that just
 * learned them made the first applies meet the collection of the learning's garbage, which no fetch
 * worker ever does.
 */
function learnAll({ domains }: LearnJob): string[] {
  return domains.map(({ domain, pages }) =>
    JSON.stringify(
      learnRecipe({
        domain,
        version: 1,
        pages: pages.map(({ url, htmlFile }) => ({ url, html: readPageHtml({ htmlFile }) })),
      }).recipe,
    ),
  );
}

parentPort?.postMessage(learnAll(workerData as LearnJob));
