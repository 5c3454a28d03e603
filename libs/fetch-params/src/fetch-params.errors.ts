import { CodedError } from '@trawl/errors';

/** Codes of a refused Fetch parameter set (spec-extract-fetch §7): the same for the Fetch API and batch tasks. */
export type FetchParamsErrorCode = 'REQS004' | 'RESP004';

/**
 * A Fetch parameter, a combination of them, or the target URL is not valid. `extensions.parameter`
 * names the parameter at fault. The gateway turns it into its own `FetchError` (problem+json); the
 * batch scheduler records it as a failed task.
 */
export class FetchParamsError extends CodedError<FetchParamsErrorCode> {
  constructor(
    code: FetchParamsErrorCode,
    /** Tells the caller what to do; never holds a secret. */
    readonly detail: string,
    readonly extensions: { parameter?: string } = {},
  ) {
    super(code, detail);
  }
}
