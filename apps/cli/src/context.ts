import { TrawlClient, type RetryEvent } from '@trawl/sdk';
import { CliError } from './cli-error';
import { resolveConfig, type CliEnvironment, type ConnectionFlags, type ReadTextFile } from './config';
import { Terminal } from './progress';

/** The CLI's version, sent in the `User-Agent` after the SDK's. */
export const CLI_VERSION = '0.1.0';

/** What every command runs with: its streams, environment and Ctrl-C signal, passed in (tests give their own). */
export interface CliContext {
  /** Data only: bodies, records, NDJSON results. */
  stdout: NodeJS.WritableStream;
  /** Read by `batch submit -`. */
  stdin: NodeJS.ReadableStream;
  /** stderr: progress (on a terminal only), notes and errors. */
  terminal: Terminal;
  env: CliEnvironment;
  /** Aborts on Ctrl-C (SIGINT): waits and reads in flight end with `TrawlAbortError`. */
  signal: AbortSignal;
  /** Reads the config file (default: from disk). */
  readConfigFile?: ReadTextFile;
}

/** Options every command has (declared on the program, read with `optsWithGlobals`). */
export interface GlobalOptions extends ConnectionFlags {
  /** Machine-readable output: records as one-line JSON, errors as problem JSON on stderr. */
  json?: boolean;
}

/**
 * A client of the API configured from flags, environment and config file. Retries are told on
 * stderr, since a command that seems stuck behind a 429 should say why.
 *
 * @throws CliError `no_api_key` when no key was found anywhere (exit code 4).
 */
export function clientFor(context: CliContext, options: GlobalOptions): TrawlClient {
  const config = resolveConfig(options, context.env, context.readConfigFile);
  if (config.apiKey === undefined) {
    throw new CliError(
      'no_api_key',
      'no_api_key',
      `no API key: pass --api-key, set TRAWL_API_KEY, or put "api_key" in ${config.configFile}`,
    );
  }
  return new TrawlClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    userAgent: `trawl-cli/${CLI_VERSION}`,
    onRetry: (event) => context.terminal.note(retryNote(event)),
  });
}

/** `trawl: retry 2 of GET /v1/crawls/… in 0.8 s (429)`: what the SDK is waiting out. */
function retryNote(event: RetryEvent): string {
  const why = event.status !== undefined ? String(event.status) : describeConnectionError(event.error);
  return `trawl: retry ${event.retry} of ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s (${why})`;
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:8080)`: undici hides the reason in `cause`. */
function describeConnectionError(error: unknown): string {
  if (!(error instanceof Error)) return 'connection lost';
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
