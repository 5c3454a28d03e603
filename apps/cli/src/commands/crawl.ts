import { Option, type Command } from 'commander';
import { TrawlAbortError, type CrawlPage, type StartCrawlRequest, type TrawlClient } from '@trawl/sdk';
import { CliError } from '../cli-error';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { NdjsonWriter, openOutput, printRecord } from '../output';
import { formatProgress, type CrawlProgress } from '../progress';
import { examples } from './help-text';
import { collect, nonNegativeInteger, positiveInteger } from './option-values';

interface StartOptions extends GlobalOptions {
  depth?: number;
  include?: string[];
  exclude?: string[];
  maxItems?: number;
  maxPages?: number;
  html?: boolean;
  sitemap?: 'include' | 'only' | 'skip';
  robots?: boolean;
  maxAge?: number;
  follow?: boolean;
  out?: string;
}

interface OutOptions extends GlobalOptions {
  out?: string;
}

/**
 * Pause between two reads of a followed crawl when nothing new came, in ms: short enough for a
 * live progress line, long enough to cost the API little (results read back to back while they flow).
 */
const FOLLOW_POLL_MS = 500;

/** `trawl crawl URL` and `trawl crawl results|get|stop|download ID`. */
export function registerCrawlCommands(program: Command, context: CliContext): void {
  const crawl = program
    .command('crawl')
    .description('Start a crawl of a site (and follow its results with --follow); see the subcommands for a crawl already started')
    .usage('[options] <url>\n       trawl crawl results|get|stop|download <crawl-id>')
    // Options after a subcommand's name are the subcommand's own (`crawl results ID --out f`).
    .enablePositionalOptions()
    .argument('<url>', 'the start URL (http or https)')
    .option('--depth <n>', 'link hops to follow from the start URL (default: unlimited)', nonNegativeInteger)
    .option('--include <text>', 'keep (and open) only URLs containing this text; repeatable', collect)
    .option('--exclude <text>', 'drop URLs containing this text; repeatable', collect)
    .option('--max-items <n>', 'URLs to keep before the crawl stops (API default 100)', positiveInteger)
    .option('--max-pages <n>', 'pages to fetch before the crawl stops (API default 100)', positiveInteger)
    .option('--html', 'also fetch the HTML of every kept page (output_format=html)')
    .addOption(
      new Option('--sitemap <mode>', "seed the crawl with the site's sitemaps too (include), or crawl only them (only)").choices([
        'include',
        'only',
        'skip',
      ]),
    )
    .option('--robots', "skip what the site's robots.txt disallows, and keep its Crawl-delay (respect_robots)")
    .option(
      '--max-age <seconds>',
      'take pages you fetched within this time from their kept copies (max_age; 1 credit each)',
      positiveInteger,
    )
    .option('-f, --follow', 'stream the results as NDJSON until the crawl ends, with a progress line on stderr')
    .option('-o, --out <file>', 'with --follow: write the NDJSON to this file instead of stdout')
    .addHelpText(
      'after',
      examples(
        ['trawl crawl https://example.com/', 'start a crawl; prints the crawl record (its crawl_id)'],
        [
          'trawl crawl https://example.com/ --max-items 2000 --max-pages 5000 --follow --out results.ndjson',
          'crawl and save every result, watching the progress',
        ],
        [
          'trawl crawl https://shop.example/ --include /product/ --exclude ?sort= --depth 3 --follow | jq -r .url',
          'only product URLs, three hops deep',
        ],
        ['trawl crawl https://example.com/ --html --json | jq -r .crawl_id', "keep each page's HTML; the id for a script"],
      ),
    )
    .action(async (url: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<StartOptions>();
      if (options.out !== undefined && !options.follow)
        throw CliError.usage('--out goes with --follow (the results are written as they come)');
      const client = clientFor(context, options);
      // Opened before the crawl starts: a path that cannot be written must not cost a crawl.
      const output = options.follow ? new NdjsonWriter(await openOutput(context, options.out)) : undefined;
      const request: StartCrawlRequest = {
        url,
        depth: options.depth,
        max_items: options.maxItems,
        max_pages: options.maxPages,
        include_patterns: options.include,
        exclude_patterns: options.exclude,
        ...(options.html && { output_format: 'html' }),
        ...(options.sitemap !== undefined && { sitemap: options.sitemap }),
        ...(options.robots && { respect_robots: true }),
        ...(options.maxAge !== undefined && { max_age: options.maxAge }),
      };
      const started = await client.crawls.start(request, { signal: context.signal });
      if (output === undefined) {
        await printRecord(context, started, options.json);
        if (context.terminal.interactive) context.terminal.note(`trawl: follow it with: trawl crawl results ${started.crawl_id}`);
        return;
      }
      if (context.terminal.interactive)
        context.terminal.note(`trawl: crawl ${started.crawl_id} started; following its results (Ctrl-C stops following, not the crawl)`);
      await followCrawl(context, client, started.crawl_id, output, options.out);
    });

  crawl
    .command('results')
    .description("Stream a crawl's results as NDJSON, following it until it ends (progress on stderr)")
    .argument('<crawl-id>')
    .option('-o, --out <file>', 'write the NDJSON to this file instead of stdout')
    .addHelpText(
      'after',
      examples(
        ['trawl crawl results 3f0c…e1 > results.ndjson', 'every result so far, then new ones until the crawl ends'],
        ['trawl crawl results 3f0c…e1 --out results.ndjson', 'the same, with a progress line on the terminal'],
      ),
    )
    .action(async (crawlId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<OutOptions>();
      const client = clientFor(context, options);
      await followCrawl(context, client, crawlId, new NdjsonWriter(await openOutput(context, options.out)), options.out);
    });

  crawl
    .command('get')
    .description("Print a crawl's record: status, coverage, limits (no results)")
    .argument('<crawl-id>')
    .addHelpText('after', examples(['trawl crawl get 3f0c…e1 --json | jq .coverage', 'pages fetched, failed and items found']))
    .action(async (crawlId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      const {
        results: _results,
        next_cursor: _cursor,
        ...record
      } = await clientFor(context, options).crawls.get(crawlId, { limit: 1 }, { signal: context.signal });
      await printRecord(context, record, options.json);
    });

  crawl
    .command('stop')
    .description('Stop a running crawl (its results so far stay readable)')
    .argument('<crawl-id>')
    .addHelpText('after', examples(['trawl crawl stop 3f0c…e1', 'stop it; prints its state']))
    .action(async (crawlId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      await printRecord(context, await clientFor(context, options).crawls.stop(crawlId, { signal: context.signal }), options.json);
    });

  crawl
    .command('download')
    .description("Write a crawl's whole result list as NDJSON, with each page's HTML when it was crawled with --html")
    .argument('<crawl-id>')
    .option('-o, --out <file>', 'write the NDJSON to this file instead of stdout')
    .addHelpText('after', examples(['trawl crawl download 3f0c…e1 --out pages.ndjson', 'URLs and HTML of an ended crawl']))
    .action(async (crawlId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<OutOptions>();
      const client = clientFor(context, options);
      const output = new NdjsonWriter(await openOutput(context, options.out));
      try {
        for await (const line of client.crawls.download(crawlId, { signal: context.signal })) await output.write(line);
      } finally {
        await output.close();
      }
      if (context.terminal.interactive && options.out !== undefined)
        context.terminal.note(`trawl: ${output.lines.toLocaleString('en-US')} lines written to ${options.out}`);
    });
}

/**
 * Writes every result of the crawl as one NDJSON line (the objects of `GET /v1/crawls/{id}`'s
 * `results`, each once, in cursor order), drawing the progress line from each read, until the
 * crawl has ended and its last results were read.
 *
 * @throws CliError `work_failed` when the crawl ended `failed`; `interrupted` on Ctrl-C (the crawl
 *   keeps running).
 */
async function followCrawl(
  context: CliContext,
  client: TrawlClient,
  crawlId: string,
  output: NdjsonWriter,
  outPath: string | undefined,
): Promise<void> {
  const { terminal } = context;
  // NDJSON going to the terminal is progress enough, and a progress line would cut into it.
  const resultsOnTerminal = outPath === undefined && (context.stdout as { isTTY?: boolean }).isTTY === true;
  const line = terminal.progress(formatProgress, !resultsOnTerminal);
  const followedAt = terminal.clock();
  let last: CrawlPage | undefined;
  let pagesAtStart: number | undefined;
  const progressOf = (page: CrawlPage): CrawlProgress => {
    pagesAtStart ??= page.coverage.pages_fetched;
    return {
      status: page.status,
      pagesFetched: page.coverage.pages_fetched,
      pagesFailed: page.coverage.pages_failed,
      itemsFound: page.coverage.items_found,
      startedAt: followedAt,
      pagesAtStart,
      ...(page.status !== 'running' && { endedAt: terminal.clock() }),
    };
  };
  try {
    const results = client.crawls.results(crawlId, {
      pollIntervalMs: FOLLOW_POLL_MS,
      signal: context.signal,
      onPage: (page) => {
        last = page;
        line.update(progressOf(page));
      },
    });
    for await (const result of results) await output.write(result);
  } catch (error) {
    if (error instanceof TrawlAbortError) {
      throw new CliError(
        'interrupted',
        'interrupted',
        `stopped following crawl ${crawlId}, which keeps running (${output.lines} results written); follow it again: trawl crawl results ${crawlId}; stop it: trawl crawl stop ${crawlId}`,
      );
    }
    throw error;
  } finally {
    line.finish();
    await output.close();
  }
  if (last === undefined) return;
  if (last.status === 'failed') {
    throw new CliError(
      'work_failed',
      last.error?.code ?? 'crawl_failed',
      `crawl ${crawlId} failed${last.error ? `: ${last.error.detail}` : ''} (${output.lines} results written)`,
    );
  }
  if (terminal.interactive) {
    const where = outPath === undefined ? '' : ` to ${outPath}`;
    terminal.note(
      `trawl: crawl ${crawlId} ${last.status}${last.stop_reason ? ` (${last.stop_reason})` : ''}: ${output.lines.toLocaleString('en-US')} results written${where}`,
    );
  }
}
