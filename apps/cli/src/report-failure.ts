import { CommanderError } from 'commander';
import { TrawlApiError, TrawlError, type Problem } from '@trawl/sdk';
import { CliError } from './cli-error';
import { exitCodeOf, outcomeOf, type Outcome } from './exit-codes';

/** What stderr says of a failure: `trawl: <code>: <detail>`, or with `--json` a problem object. */
export interface FailureReport {
  /** The line for people; undefined when there is nothing to tell (help was shown instead). */
  text: string | undefined;
  /** The problem for scripts (`--json`): the API's own problem body when it answered one. */
  problem: Problem;
  exitCode: number;
}

/**
 * How a failure is told and which exit code it ends with: the one place errors become output.
 * API errors keep their problem `code`, `detail` and `instance`; the key is in none of them.
 */
export function reportOf(error: unknown): FailureReport {
  const outcome = outcomeOf(error);
  const exitCode = exitCodeOf(outcome);
  if (error instanceof TrawlApiError) {
    const code = error.code ?? `http_${error.status}`;
    const detail = error.detail ?? error.title ?? error.message;
    const instance = error.instance ? ` (instance ${error.instance})` : '';
    return {
      text: `trawl: ${code}: ${detail}${instance}`,
      problem: { status: error.status, ...error.problem, code, exit_code: exitCode },
      exitCode,
    };
  }
  const { code, detail } = codeAndDetail(error, outcome);
  // `--help`, `--version`, and a command group run without its subcommand (commander shows its help).
  const helpShown = outcome === 'ok' || (error instanceof CommanderError && error.code === 'commander.help');
  return { text: helpShown ? undefined : `trawl: ${code}: ${detail}`, problem: { code, detail, exit_code: exitCode }, exitCode };
}

function codeAndDetail(error: unknown, outcome: Outcome): { code: string; detail: string } {
  if (error instanceof CliError) return { code: error.code, detail: error.detail };
  if (error instanceof CommanderError) return { code: 'usage', detail: `${error.message.replace(/^error: /, '')} (see --help)` };
  // The SDK's other errors (connection, timeout, abort) are told by what they mean for the caller.
  if (error instanceof TrawlError) return { code: outcome, detail: error.message };
  return { code: 'unexpected', detail: error instanceof Error ? error.message : String(error) };
}
