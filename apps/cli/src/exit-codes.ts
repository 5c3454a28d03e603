import { CommanderError } from 'commander';
import { TrawlAbortError, TrawlApiError, TrawlConnectionError, TrawlTimeoutError } from '@trawl/sdk';
import { CliError, type CliErrorKind } from './cli-error';

/** How a command ended, as far as a script can tell from the exit code. */
export type Outcome = 'ok' | 'unexpected' | 'usage' | 'refused' | 'auth' | 'limit' | 'unavailable' | 'work_failed' | 'interrupted';

/**
 * The exit code of each outcome: the one mapping, checked by the compiler (a new outcome without a
 * case does not compile). Codes are kept once published: scripts branch on them.
 */
export function exitCodeOf(outcome: Outcome): number {
  switch (outcome) {
    case 'ok':
      return 0;
    case 'unexpected':
      return 1;
    case 'usage':
      return 2;
    case 'refused':
      return 3;
    case 'auth':
      return 4;
    case 'limit':
      return 5;
    case 'unavailable':
      return 6;
    case 'work_failed':
      return 7;
    case 'interrupted':
      // 128 + SIGINT, what shells report for a command ended by Ctrl-C.
      return 130;
  }
}

/** What each exit code means, for `trawl --help` and docs/cli.md. A `Record` so none is left out. */
const MEANINGS: Record<Outcome, string> = {
  ok: 'Done (also: a crawl that was stopped, a run whose tasks partly failed).',
  unexpected: 'Unexpected error (a bug in the CLI, or an answer it does not understand).',
  usage: 'Usage error: bad arguments or options, a file that cannot be read or written, an unreadable config file.',
  refused: 'The API refused the request (4xx other than below: invalid parameters, not found, conflict).',
  auth: 'No API key, or the key was refused (401, 403, or an AUTH* code such as an expired key).',
  limit: 'Credits, plan or limits: 402 (credits spent, feature not in plan) or 429 after retries (concurrency, rate, active jobs).',
  unavailable: 'The API could not be reached or failed: connection error, timeout, 5xx after retries.',
  work_failed: 'The crawl, batch run or domain preparation the command waited on ended `failed`.',
  interrupted: 'Interrupted by Ctrl-C (SIGINT); a crawl or run being followed keeps running.',
};

/** Every exit code with its meaning, in ascending order. */
export const EXIT_CODE_TABLE: readonly { code: number; outcome: Outcome; meaning: string }[] = (Object.keys(MEANINGS) as Outcome[])
  .map((outcome) => ({ code: exitCodeOf(outcome), outcome, meaning: MEANINGS[outcome] }))
  .sort((a, b) => a.code - b.code);

/** The exit-code table as aligned text, for help output. */
export function exitCodeHelp(): string {
  return EXIT_CODE_TABLE.map(({ code, meaning }) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n');
}

/** The outcome of an error a command threw (or of commander's own help and version "errors"). */
export function outcomeOf(error: unknown): Outcome {
  if (error instanceof CliError) return outcomeOfCliError(error.kind);
  if (error instanceof CommanderError) {
    // exitOverride turns --help and --version into errors too.
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 'ok' : 'usage';
  }
  if (error instanceof TrawlAbortError) return 'interrupted';
  if (error instanceof TrawlApiError) return outcomeOfStatus(error.status, error.code);
  if (error instanceof TrawlConnectionError || error instanceof TrawlTimeoutError) return 'unavailable';
  return 'unexpected';
}

function outcomeOfCliError(kind: CliErrorKind): Outcome {
  switch (kind) {
    case 'usage':
      return 'usage';
    case 'no_api_key':
      return 'auth';
    case 'work_failed':
      return 'work_failed';
    case 'interrupted':
      return 'interrupted';
  }
}

/** An API error answer's outcome: by status, except that every `AUTH*` code (an expired key is a 402) is about the key. */
export function outcomeOfStatus(status: number, code?: string): Outcome {
  if (status === 401 || status === 403 || code?.startsWith('AUTH')) return 'auth';
  if (status === 402 || status === 429) return 'limit';
  if (status >= 500) return 'unavailable';
  if (status >= 400) return 'refused';
  return 'unexpected';
}
