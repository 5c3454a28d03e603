import type { Command } from 'commander';
import { TrawlAbortError, type PreparedDomain, type TrawlClient } from '@trawl/sdk';
import { CliError } from '../cli-error';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { printRecord } from '../output';
import { formatPreparationProgress, type PreparationProgress } from '../progress';
import { examples } from './help-text';
import { collect } from './option-values';

interface PrepareOptions extends GlobalOptions {
  example?: string[];
  wait?: boolean;
}

/** Pause between two reads of a domain being prepared, in ms: preparation takes minutes. */
const PREPARE_POLL_MS = 2_000;

/** `trawl extract prepare|status`: domains prepared for `extract=auto`. */
export function registerExtractCommands(program: Command, context: CliContext): void {
  const extract = program
    .command('extract')
    .description('Extract: prepare a domain for structured extraction (extract=auto), see how far it is')
    .enablePositionalOptions()
    .addHelpText(
      'after',
      examples([
        'trawl extract prepare shop.example --example https://shop.example/p/1 --wait',
        'prepare a domain and wait until it is served',
      ]),
    );

  extract
    .command('prepare')
    .description('Ask for a domain to be prepared (a domain already ready or preparing is not prepared twice); prints its record')
    .argument('<domain>', 'a host name such as www.shop.example, or a URL of it')
    .option('--example <url>', 'a page of interest on the domain (product, article…); repeatable, at most 20', collect)
    .option('-w, --wait', 'wait until the domain is ready or failed, with a progress line on stderr')
    .addHelpText(
      'after',
      examples(
        [
          'trawl extract prepare shop.example --example https://shop.example/p/1 --example https://shop.example/p/2',
          'learn from two product pages first',
        ],
        ['trawl extract prepare news.example --wait --json | jq .page_types', 'wait, then list what it learnt'],
      ),
    )
    .action(async (domain: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<PrepareOptions>();
      const client = clientFor(context, options);
      let record = await client.extract.prepare({ domain, example_urls: options.example }, { signal: context.signal });
      if (options.wait && record.status !== 'ready' && record.status !== 'failed')
        record = await waitForPreparation(context, client, record.domain);
      await printRecord(context, record, options.json);
      if (record.status === 'failed')
        throw new CliError(
          'work_failed',
          'preparation_failed',
          `preparing ${record.domain} failed${record.failure_reason ? `: ${record.failure_reason}` : ''}`,
        );
    });

  extract
    .command('status')
    .description("Print a prepared domain's record: status, progress, page types and fields")
    .argument('<domain>')
    .addHelpText('after', examples(['trawl extract status shop.example --json | jq -r .status', 'queued, preparing, ready or failed']))
    .action(async (domain: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      await printRecord(context, await clientFor(context, options).extract.get(domain, { signal: context.signal }), options.json);
    });
}

async function waitForPreparation(context: CliContext, client: TrawlClient, domain: string): Promise<PreparedDomain> {
  const { terminal } = context;
  const line = terminal.progress(formatPreparationProgress);
  const startedAt = terminal.clock();
  const progressOf = (record: PreparedDomain): PreparationProgress => ({
    status: record.status,
    pagesFetched: record.progress.pages_fetched,
    pagesAnalysed: record.progress.pages_analysed,
    startedAt,
    ...((record.status === 'ready' || record.status === 'failed') && { endedAt: terminal.clock() }),
  });
  try {
    return await client.extract.waitFor(domain, {
      pollIntervalMs: PREPARE_POLL_MS,
      signal: context.signal,
      onProgress: (record) => line.update(progressOf(record)),
    });
  } catch (error) {
    if (error instanceof TrawlAbortError)
      throw new CliError(
        'interrupted',
        'interrupted',
        `stopped waiting for ${domain}, whose preparation goes on; see it: trawl extract status ${domain}`,
      );
    throw error;
  } finally {
    line.finish();
  }
}
