import { Option, type Command } from 'commander';
import { isRunFinished, TrawlAbortError, type CreateJobInputRequest, type JobRun, type TrawlClient } from '@trawl/sdk';
import { CliError } from '../cli-error';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { NdjsonWriter, openOutput, printRecord, readInput, writeTo } from '../output';
import { formatRunProgress, type RunProgress } from '../progress';
import { examples } from './help-text';
import { addScrapeOptions, scrapeParams, type ScrapeOptionValues } from './scrape-options';

interface SubmitOptions extends GlobalOptions, ScrapeOptionValues {
  watch?: boolean;
  header: boolean;
  urlColumn: string;
  idColumn?: string;
}

interface ResultsOptions extends GlobalOptions {
  status?: 'successful' | 'failed';
  changed?: boolean;
  run?: string;
  out?: string;
}

/** Pause between two reads of a watched run, in ms. */
const WATCH_POLL_MS = 1_000;

/** `trawl batch submit|watch|results`: Batch jobs from a CSV file of URLs. */
export function registerBatchCommands(program: Command, context: CliContext): void {
  const batch = program
    .command('batch')
    .description('Batch jobs: submit a CSV file of URLs, watch the run, read the results')
    .enablePositionalOptions()
    .addHelpText(
      'after',
      examples(
        ['trawl batch submit urls.csv --watch', 'submit and watch the run until it ends'],
        ['trawl batch results 9a1d…04 --status failed', 'the tasks that failed, as NDJSON'],
      ),
    );

  const submit = batch
    .command('submit')
    .description('Upload a CSV file of URLs (a "url" column, or see --url-column) as a Batch job; prints the job id')
    .argument('<csv-file>', 'the CSV file, or - for stdin');
  addScrapeOptions(submit)
    .option('--no-header', 'the file has no header row: columns are named by 0-based index')
    .option('--url-column <column>', 'the column of the URLs (a header name, or an index with --no-header)', 'url')
    .option('--id-column <column>', 'a column returned as external_id on each result')
    .option('-w, --watch', 'watch the run until it ends, with a progress line on stderr')
    .addHelpText(
      'after',
      examples(
        ['trawl batch submit urls.csv', 'submit; prints the job id'],
        ['trawl batch submit urls.csv --js --markdown --watch', 'render every page, as Markdown, and watch the run'],
        ['trawl batch submit products.csv --id-column sku --param wait_for=.price --js', 'each result carries its sku; wait for the price'],
        ['cut -d, -f3 export.csv | trawl batch submit - --no-header --url-column 0 --json', 'URLs from stdin; the job record as JSON'],
      ),
    )
    .action(async (file: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<SubmitOptions>();
      const layout = csvInputOf(options);
      const client = clientFor(context, options);
      const csv = await readInput(context, file);
      const input = await client.jobInputs.uploadCsv(csv, layout, { signal: context.signal });
      const job = await client.jobs.create(
        { file_input_id: input.file_input_id, service_params: scrapeParams(options) },
        { signal: context.signal },
      );
      if (!options.watch) {
        await (options.json ? printRecord(context, job, true) : writeTo(context.stdout, `${job.job_id}\n`));
        return;
      }
      // The id first, so that a script (or a person who presses Ctrl-C) has it whatever happens next.
      if (!options.json) await writeTo(context.stdout, `${job.job_id}\n`);
      await watchRun(context, client, job.job_id);
      if (options.json) await printRecord(context, await client.jobs.get(job.job_id, { signal: context.signal }), true);
    });

  batch
    .command('watch')
    .description("Watch a job's latest run until it ends, with a progress line on stderr")
    .argument('<job-id>')
    .addHelpText('after', examples(['trawl batch watch 9a1d…04 && echo done', 'wait for the run; exit code 7 if it failed']))
    .action(async (jobId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      const client = clientFor(context, options);
      const run = await watchRun(context, client, jobId);
      if (options.json) await printRecord(context, run, true);
    });

  batch
    .command('results')
    .description("Stream the task results of a job's run (the latest by default) as NDJSON")
    .argument('<job-id>')
    .addOption(new Option('--status <status>', 'keep only successful or failed tasks').choices(['successful', 'failed']))
    .option('--changed', 'keep only pages that changed or went since the last run (jobs submitted with --changes)')
    .option('--run <run-id>', 'the run to read (default: the latest)')
    .option('-o, --out <file>', 'write the NDJSON to this file instead of stdout')
    .addHelpText(
      'after',
      examples(
        ['trawl batch results 9a1d…04 > results.ndjson', 'every task of the latest run (unfinished ones too, with their status)'],
        ["trawl batch results 9a1d…04 --status failed | jq -r '[.url, .error.code] | @tsv'", 'which URLs failed, and why'],
        ["trawl batch results 9a1d…04 --changed | jq -r '[.change_status, .url] | @tsv'", 'what a monitor found changed'],
      ),
    )
    .action(async (jobId: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals<ResultsOptions>();
      const client = clientFor(context, options);
      const output = new NdjsonWriter(await openOutput(context, options.out));
      try {
        // The API filters successful tasks itself; failed ones are picked here (it has no such filter).
        const results = client.jobs.results(
          jobId,
          {
            status: options.status === 'successful' ? 'successful' : undefined,
            run_id: options.run,
            ...(options.changed && { change_status: 'changed,removed' }),
          },
          { signal: context.signal },
        );
        for await (const result of results) {
          if (options.status === 'failed' && result.status !== 'failed') continue;
          await output.write(result);
        }
      } finally {
        await output.close();
      }
    });
}

/** The CSV layout of `uploadCsv` from the options: header names, or indexes without a header. */
export function csvInputOf(options: Pick<SubmitOptions, 'header' | 'urlColumn' | 'idColumn'>): CreateJobInputRequest {
  const column = (value: string, option: string): string | number => {
    if (options.header) return value;
    if (!/^\d+$/.test(value)) throw CliError.usage(`${option} must be a 0-based column index with --no-header, got "${value}"`);
    return Number(value);
  };
  return {
    type: 'csv',
    csv: {
      header: options.header,
      fields: {
        url: column(options.urlColumn, '--url-column'),
        ...(options.idColumn !== undefined && { external_id: column(options.idColumn, '--id-column') }),
      },
    },
  };
}

/**
 * Polls the job's latest run until it ends, drawing its progress.
 *
 * @throws CliError `work_failed` when the run ended `failed`; `interrupted` on Ctrl-C (the run goes on).
 */
async function watchRun(context: CliContext, client: TrawlClient, jobId: string): Promise<JobRun> {
  const { terminal } = context;
  const line = terminal.progress(formatRunProgress);
  const watchedAt = terminal.clock();
  let completedAtStart: number | undefined;
  const progressOf = (run: JobRun): RunProgress => {
    completedAtStart ??= run.stats.completed;
    return {
      status: run.status,
      total: run.stats.total,
      completed: run.stats.completed,
      failed: run.stats.failed,
      startedAt: watchedAt,
      completedAtStart,
      ...(isRunFinished(run) && { endedAt: terminal.clock() }),
    };
  };
  let run: JobRun;
  try {
    run = await client.jobs.waitForRun(jobId, undefined, {
      pollIntervalMs: WATCH_POLL_MS,
      signal: context.signal,
      onProgress: (state) => line.update(progressOf(state)),
    });
  } catch (error) {
    if (error instanceof TrawlAbortError) {
      throw new CliError(
        'interrupted',
        'interrupted',
        `stopped watching job ${jobId}, whose run goes on; watch it again: trawl batch watch ${jobId}`,
      );
    }
    throw error;
  } finally {
    line.finish();
  }
  if (run.status === 'failed') {
    throw new CliError(
      'work_failed',
      run.failure_reason ?? 'run_failed',
      `run ${run.run_id} of job ${jobId} failed${run.failure_detail ? `: ${run.failure_detail}` : ''}`,
    );
  }
  if (terminal.interactive) {
    terminal.note(
      `trawl: run ${run.run_id} ${run.status}: ${run.stats.successful.toLocaleString('en-US')} successful, ${run.stats.failed.toLocaleString('en-US')} failed; results: trawl batch results ${jobId}`,
    );
  }
  return run;
}
