import { FETCH_PARAMETERS, type FetchParameter } from '@trawl/contracts';
import { FetchParamsError } from './fetch-params.errors';
import { parseFetchParams } from './fetch-params';

const URL_ = 'https://shop.test/';

/** What a parameter of each kind refuses, whatever else the query holds. */
const BAD_VALUE: Record<Exclude<FetchParameter['kind'], 'string' | 'api_key'>, string> = {
  boolean: 'maybe',
  integer: 'x',
  enum: 'no-such-value',
  list: 'no-such-value',
  integer_list: 'x',
  json: '{',
};

function refusal(query: Record<string, string>): FetchParamsError {
  try {
    parseFetchParams(query);
  } catch (error) {
    if (error instanceof FetchParamsError) return error;
    throw error;
  }
  throw new Error('query was accepted');
}

describe(parseFetchParams.name, () => {
  // The document describes every parameter of FETCH_PARAMETERS: each must be one the parser reads.
  describe('reads every parameter of FETCH_PARAMETERS', () => {
    const typed = Object.entries(FETCH_PARAMETERS as Record<string, FetchParameter>).flatMap(([name, parameter]) =>
      parameter.kind === 'string' || parameter.kind === 'api_key' ? [] : [[name, parameter.kind, BAD_VALUE[parameter.kind]] as const],
    );

    it.each(typed)('refuses a bad `%s` (%s) naming it', (name, _kind, value) => {
      const error = refusal({ url: URL_, [name]: value });
      expect(error.extensions.parameter).toBe(name);
    });

    it.each([
      ['url', ''],
      ['proxy_country', 'usa'],
      ['wait_for', ' '],
      ['screenshot_selector', ''],
    ])('refuses a bad `%s` naming it', (name, value) => {
      expect(refusal({ url: URL_, [name]: value }).extensions.parameter).toBe(name);
    });

    it('checks integers against the bounds of the list', () => {
      expect(refusal({ url: URL_, session_id: String(FETCH_PARAMETERS.session_id.max + 1) }).extensions.parameter).toBe('session_id');
      expect(parseFetchParams({ url: URL_, session_id: String(FETCH_PARAMETERS.session_id.max) }).options.session_id).toBe(
        FETCH_PARAMETERS.session_id.max,
      );
    });

    it('refuses a parameter the list does not hold', () => {
      expect(refusal({ url: URL_, colour: 'red' }).extensions.parameter).toBe('colour');
    });
  });
});
