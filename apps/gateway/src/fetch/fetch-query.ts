import { FetchParamsError, FetchQuery, parseFetchParams } from '@trawl/fetch-params';
import type { QueryParameters } from '../problems/query-parameters';
import { FetchError, FetchErrorCode } from './fetch.errors';

// The rules themselves live in @trawl/fetch-params, shared with the batch scheduler, so a batch task
// runs with exactly the Fetch API's option rules; this file answers them as the gateway's errors.
export type { FetchQuery } from '@trawl/fetch-params';

/**
 * Parses and checks the Fetch endpoint's query (see `parseFetchParams`).
 *
 * @throws FetchError `REQS004` (detail and `parameter` name the parameter), `RESP004` (css_extractor).
 */
export function parseFetchQuery(query: QueryParameters | undefined): FetchQuery {
  return asFetchError(() => parseFetchParams(query));
}

function asFetchError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof FetchParamsError)) throw error;
    const code = error.code === 'RESP004' ? FetchErrorCode.InvalidCssExtractor : FetchErrorCode.InvalidParameters;
    throw new FetchError(code, error.detail, { ...error.extensions });
  }
}
