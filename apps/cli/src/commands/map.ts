import { Command, Option } from 'commander';
import type { MapOptions, MapResult } from '@trawl/sdk';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { NdjsonWriter, openOutput } from '../output';
import { examples } from './help-text';
import { positiveInteger } from './option-values';

interface MapCommandOptions extends GlobalOptions {
  search?: string;
  limit?: number;
  subdomains?: boolean;
  sitemap?: 'include' | 'only' | 'skip';
  timeout?: number;
  out?: string;
}

/** `trawl map URL`: a site's URLs from its sitemaps and page, one per line (or NDJSON with --json). */
export function registerMapCommand(program: Command, context: CliContext): void {
  program
    .command('map')
    .description("List a site's URLs from its sitemaps and page, without crawling it")
    .argument('<url>', 'the site (http or https)')
    .option('--search <words>', 'only URLs whose address or link text holds these words, most relevant first')
    .option('--limit <n>', 'most URLs listed (default 5,000; at most 100,000)', positiveInteger)
    .option('--subdomains', "also list the site's other subdomains")
    .addOption(
      new Option('--sitemap <mode>', 'include: sitemaps and page; only: sitemaps; skip: the page').choices(['include', 'only', 'skip']),
    )
    .option('--timeout <ms>', 'time for the whole map (default 30,000 ms)', positiveInteger)
    .option('-o, --out <file>', 'write the list to this file instead of stdout')
    .addHelpText(
      'after',
      examples(
        ['trawl map https://example.com/', 'one URL per line'],
        ['trawl map https://example.com/ --search pricing --limit 10', 'the ten most relevant to "pricing"'],
        ['trawl map https://example.com/ --json > links.ndjson', 'one JSON object per URL (url, source, lastmod, title)'],
      ),
    )
    .action(async (url: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<MapCommandOptions>();
      const request: MapOptions = {
        ...(options.search !== undefined && { search: options.search }),
        ...(options.limit !== undefined && { limit: options.limit }),
        ...(options.subdomains && { include_subdomains: true }),
        ...(options.sitemap !== undefined && { sitemap: options.sitemap }),
        ...(options.timeout !== undefined && { timeout_ms: options.timeout }),
      };
      // Opened first: a path that cannot be written fails before the map is billed.
      const out = await openOutput(context, options.out);
      try {
        const result = await clientFor(context, options).map(url, request, { signal: context.signal });
        if (options.json) {
          const lines = new NdjsonWriter(out);
          for (const link of result.links) await lines.write(link);
        } else {
          for (const link of result.links) await out.write(`${link.url}\n`);
        }
        if (!result.complete || result.found > result.links.length) context.terminal.note(mapNote(result));
      } finally {
        await out.close();
      }
    });
}

/** What a person should know of a map cut short: how many URLs were listed of those found, and whether sources went unread. */
function mapNote(result: MapResult): string {
  const listed =
    result.found > result.links.length ? `${result.links.length} of ${result.found} URLs listed` : `${result.links.length} URLs listed`;
  return result.complete ? listed : `${listed}; the map is incomplete (its time ran out, or a size bound stopped reading)`;
}
