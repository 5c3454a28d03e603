/**
 * Why the CLI itself gave up, as opposed to an error the SDK threw: each kind has one exit code
 * (see `exit-codes.ts`).
 *
 * - `usage`: the command line, a file it names or the configuration cannot be used as given.
 * - `no_api_key`: no key in the flags, the environment or the config file.
 * - `work_failed`: the crawl, run or domain preparation the command waited on ended `failed`.
 * - `interrupted`: Ctrl-C (SIGINT) ended the command.
 */
export type CliErrorKind = 'usage' | 'no_api_key' | 'work_failed' | 'interrupted';

/** An error the CLI raises on purpose; `code` is what `trawl: <code>: <detail>` shows. */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    readonly kind: CliErrorKind,
    /** Shown after `trawl:`: the API's error code of a failed crawl, else the kind. */
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }

  static usage(detail: string): CliError {
    return new CliError('usage', 'usage', detail);
  }
}
