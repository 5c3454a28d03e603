/**
 * The crawl bench's limit: the fastest crawl of the generated site a user could write in one
 * process, with nothing kept but a `Set` of the URLs seen: undici keep-alive connections, breadth
 * first, links taken by htmlparser2 (as Trawl's worker takes them), same host, fragment dropped. No
 * durability, no politeness, no tenants: what the machine can do, so Trawl's share of it says how
 * much its guarantees cost. Run as its own process (see child-crawl.ts for its command line and output):
 *   node dist/bench/one-process-crawl.js --url <u> --pages <n> --concurrency <c> --warmup-pages <w> --host-map <map>
 */
import { performance } from 'node:perf_hooks';
import { Parser } from 'htmlparser2';
import { Agent } from 'undici';
import { runChildCrawl, type ChildCrawl } from './child-crawl';

function linksOf(html: string, base: URL): string[] {
  const links: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name !== 'a' || attributes.href === undefined) return;
        let link: URL;
        try {
          link = new URL(attributes.href, base);
        } catch {
          return;
        }
        if (link.host !== base.host) return;
        link.hash = '';
        links.push(link.href);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return links;
}

const crawl: ChildCrawl = async (url, maxRequests, concurrency, lookup, onHandled) => {
  const agent = new Agent({ connections: concurrency, pipelining: 1, connect: { lookup: lookup as never } });
  const start = new URL(url);
  start.hash = '';
  const seen = new Set<string>([start.href]);
  const queue: string[] = [start.href];
  let next = 0;
  let inFlight = 0;
  let handled = 0;
  let failed = 0;
  // Loops with nothing to take wait here until a page in flight enqueues links or the crawl ends.
  let wake: (() => void) | undefined;
  let idle = new Promise<void>((resolve) => (wake = resolve));
  const notify = () => {
    wake?.();
    idle = new Promise<void>((resolve) => (wake = resolve));
  };
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(inFlight), 100);
  const startedAt = performance.now();

  const loop = async (): Promise<void> => {
    for (;;) {
      if (next >= queue.length) {
        if (inFlight === 0) return;
        await idle;
        continue;
      }
      const page = new URL(queue[next++]);
      inFlight += 1;
      try {
        const res = await agent.request({ origin: page.origin, path: page.pathname + page.search, method: 'GET' });
        const html = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
        for (const link of linksOf(html, page)) {
          if (seen.size >= maxRequests) break;
          if (!seen.has(link)) {
            seen.add(link);
            queue.push(link);
          }
        }
        onHandled(++handled);
      } catch {
        failed += 1;
      } finally {
        inFlight -= 1;
        notify();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const seconds = (performance.now() - startedAt) / 1000;
  clearInterval(sampler);
  await agent.close();
  return { handled, failed, seconds, meanConcurrency: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length) };
};

runChildCrawl('one-process crawl', crawl);
