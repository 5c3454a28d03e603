import { RUN_TASK_STATES } from '@trawl/contracts';
import { resultLine } from './export-archive';
import type { ResultRow } from './job-exports.repository';

const row = (fields: Partial<ResultRow>): ResultRow => ({
  seq: 1,
  url: 'https://shop.test/p/1',
  externalId: 'e1',
  metadata: null,
  state: 'succeeded',
  statusCode: 200,
  outputFormat: 'html',
  contentType: 'text/html',
  errorCode: null,
  errorDetail: null,
  credits: 1,
  cache: null,
  changeStatus: null,
  bodyBytes: 10,
  ...fields,
});

const lineOf = (fields: Partial<ResultRow>) => JSON.parse(resultLine(row(fields)).toString('utf8')) as Record<string, unknown>;

describe(resultLine.name, () => {
  it('carries the freshness verdicts only for tasks that asked for them', () => {
    expect(lineOf({ cache: 'hit', changeStatus: 'changed' })).toMatchObject({ cache: 'hit', change_status: 'changed' });
    expect(lineOf({})).not.toHaveProperty('cache');
    expect(lineOf({})).not.toHaveProperty('change_status');
  });

  it('says how each task stands in the results endpoint’s words, never the stored state', () => {
    expect(lineOf({ state: 'succeeded' })).toMatchObject({ status: 'successful' });
    expect(lineOf({ state: 'carried', credits: 0 })).toMatchObject({ status: 'successful', carried_over: true });
    expect(lineOf({ state: 'failed', errorCode: 'RESP002', errorDetail: 'Not found', bodyBytes: null })).toMatchObject({
      status: 'failed',
      error: { code: 'RESP002', detail: 'Not found' },
      file: null,
    });
    expect(lineOf({ state: 'dispatched', statusCode: null, bodyBytes: null })).toMatchObject({ status: 'in_progress' });
    expect(lineOf({ state: 'queued', statusCode: null, bodyBytes: null })).toMatchObject({ status: 'queued' });
    for (const state of RUN_TASK_STATES) expect(lineOf({ state })).not.toHaveProperty('state');
    expect(lineOf({ state: 'succeeded' })).not.toHaveProperty('carried_over');
  });
});
