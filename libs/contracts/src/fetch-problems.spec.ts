import { FETCH_WORKER_ERROR_CODES } from './fetch.messages';
import { workerProblemKind } from './fetch-problems';

describe(workerProblemKind.name, () => {
  it('gives every worker code the status of the spec’s table', () => {
    const statuses = Object.fromEntries(FETCH_WORKER_ERROR_CODES.map((code) => [code, workerProblemKind(code).status]));
    expect(statuses).toEqual({
      REQS002: 400,
      REQS004: 400,
      REQS006: 400,
      RESP001: 422,
      RESP002: 404,
      RESP003: 502,
      RESP004: 400,
      RESP005: 413,
      RESP006: 424,
      RESP007: 404,
      RESP008: 400,
      RESP009: 503,
      CTX0002: 504,
      CTX0001: 500,
      ERR0001: 500,
    });
  });
});
