import type { Command } from 'commander';
import type { FetchOptions, FetchResult } from '@trawl/sdk';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { openOutput, printRecord } from '../output';
import { examples } from './help-text';
import { addScrapeOptions, scrapeParams, type ScrapeOptionValues } from './scrape-options';

interface FetchCommandOptions extends GlobalOptions, ScrapeOptionValues {
  out?: string;
}

/** `trawl fetch URL`: one page through the Fetch API, its body to stdout or a file. */
export function registerFetchCommand(program: Command, context: CliContext): void {
  const command = program
    .command('fetch')
    .description('Fetch one page and write its body (HTML, Markdown, JSON of --outputs…) to stdout or --out')
    .argument('<url>', 'the page to fetch (http or https)');
  addScrapeOptions(command)
    .option('-o, --out <file>', 'write the body to this file instead of stdout')
    .addHelpText(
      'after',
      examples(
        ['trawl fetch https://example.com/', 'the page as HTML on stdout'],
        ['trawl fetch https://example.com/ --js --markdown --out page.md', 'rendered in a browser, as Markdown, into a file'],
        ['trawl fetch https://shop.example/p/1 --premium --country de', 'through a German premium proxy'],
        ['trawl fetch https://example.com/ --outputs emails,links', 'extracted data as JSON'],
        ['trawl fetch https://example.com/ --json | jq .credits', 'status, credits and body as one JSON object'],
      ),
    )
    .action(async (url: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<FetchCommandOptions>();
      const client = clientFor(context, options);
      const out = options.out === undefined && options.json ? undefined : await openOutput(context, options.out);
      let result: FetchResult;
      try {
        result = await client.fetch.page(url, scrapeParams(options) as FetchOptions, { signal: context.signal });
        await out?.write(result.body);
      } finally {
        await out?.close();
      }
      if (options.json) await printRecord(context, describeFetch(result, options.out === undefined), true);
    });
}

/**
 * A Fetch answer as JSON for `--json`: what the API said of the request, and the body unless it
 * went to a file (text as is, anything else in base64, as batch results write it).
 */
function describeFetch(result: FetchResult, withBody: boolean): Record<string, unknown> {
  const text = isText(result.contentType);
  return {
    status: result.status,
    credits: result.credits ?? null,
    cost: result.cost ?? null,
    final_url: result.finalUrl ?? null,
    content_type: result.contentType ?? null,
    request_id: result.requestId ?? null,
    bytes: result.body.byteLength,
    ...(withBody && { encoding: text ? 'utf8' : 'base64', body: text ? result.text() : Buffer.from(result.body).toString('base64') }),
  };
}

function isText(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type.startsWith('text/') || type.endsWith('json') || type.endsWith('xml') || type === 'application/javascript';
}
