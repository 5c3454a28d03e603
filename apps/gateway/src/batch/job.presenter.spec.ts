import { job as jobAnswer, jobRun, scheduleFiring, taskResult } from '@trawl/contracts/http';
import { encodeContent, presentFiring, presentJob, presentResult, presentRun, presentSchedule, resultStatus } from './job.presenter';
import type { JobRecord, RunRecord } from './jobs.repository';

const run: RunRecord = {
  id: 'a4f4e1a2-8d4c-4a3e-9b1e-2f0c6d7e8f90',
  jobId: '0b6f3c2e-1d4a-4f5b-8c9d-0e1f2a3b4c5d',
  runSequence: 1,
  kind: 'initial',
  status: 'completed',
  total: 3,
  successful: 2,
  failed: 1,
  credits: 30,
  cost: 0.0025,
  failureReason: null,
  failureDetail: null,
  createdAt: new Date('2030-01-01T00:00:00Z'),
  startedAt: null,
  finishedAt: null,
};
const job: JobRecord = {
  id: run.jobId,
  tenantId: '5c1d7e3f-2a4b-4c6d-8e0f-1a2b3c4d5e6f',
  type: 'regular',
  status: 'closed',
  serviceParams: {},
  webhookUrl: null,
  webhookSignature: false,
  ingestState: 'ready',
  fileInputId: null,
  taskCount: 3,
  createdAt: new Date('2030-01-01T00:00:00Z'),
  createdAtMicros: '1893456000000000',
  latestRun: run,
  schedule: null,
};

describe(presentJob.name, () => {
  it('shows file_input_id: the CSV input the tasks came from, null for inline tasks', () => {
    expect(presentJob(job)).toMatchObject({ file_input_id: null });
    const fromCsv = { ...job, fileInputId: '7d2e4f6a-8b0c-4d1e-9f2a-3b4c5d6e7f80' };
    expect(presentJob(fromCsv)).toMatchObject({ file_input_id: '7d2e4f6a-8b0c-4d1e-9f2a-3b4c5d6e7f80' });
  });
});

describe(presentRun.name, () => {
  it('shows the cost stored with the run (as webhooks send it), not its credits at today’s price', () => {
    expect(presentRun(run).stats.spend).toEqual({ credits: 30, cost: 0.0025 });
  });
});

describe(resultStatus.name, () => {
  it.each([
    ['queued', { status: 'queued' }],
    ['dispatched', { status: 'in_progress' }],
    ['succeeded', { status: 'successful' }],
    ['carried', { status: 'successful', carried_over: true }],
    ['failed', { status: 'failed' }],
  ] as const)('says %s as %j', (state, words) => {
    expect(resultStatus(state)).toEqual(words);
  });
});

describe(encodeContent.name, () => {
  it.each([
    ['text/html; charset=utf-8', 'html'],
    ['application/json', 'json'],
    ['application/ld+json', null],
    ['text/markdown', 'markdown'],
  ])('serves %s as a UTF-8 string', (contentType, format) => {
    expect(encodeContent(Buffer.from('héllo'), contentType, format)).toEqual({ text: 'héllo', encoding: 'utf8' });
  });

  it('serves PDFs and images as base64, whatever bytes they hold', () => {
    const bytes = Buffer.from('%PDF-1.7 looks like text');
    expect(encodeContent(bytes, 'application/pdf', 'pdf')).toEqual({ text: bytes.toString('base64'), encoding: 'base64' });
    expect(encodeContent(bytes, 'image/png', null).encoding).toBe('base64');
  });

  it('falls back on the output format when no content type was recorded', () => {
    expect(encodeContent(Buffer.from('x'), null, 'plaintext').encoding).toBe('utf8');
    expect(encodeContent(Buffer.from('x'), null, 'pdf').encoding).toBe('base64');
    expect(encodeContent(Buffer.from('x'), null, null).encoding).toBe('base64');
  });
});

describe(presentSchedule.name, () => {
  it('shows the state column, not a state kept in the JSON, and leaves unset parts out', () => {
    const next = new Date('2030-01-06T05:00:00Z');
    expect(
      presentSchedule({
        schedule: { rate: { every: 2, unit: 'hour' }, calendar: undefined, at: undefined, timezone: undefined, schedule_state: 'active' },
        state: 'paused',
        anchorAt: new Date(),
        nextDueAt: next,
      }),
    ).toEqual({ rate: { every: 2, unit: 'hour' }, schedule_state: 'paused', next_run_at: next.toISOString() });
  });
});

describe('the answers', () => {
  // The compiler ties the presenters to the document's types; formats (uuid, date-time) are the schemas' to check.
  it('are what the OpenAPI document says', () => {
    const scheduled: JobRecord = {
      ...job,
      type: 'scheduled',
      webhookUrl: 'https://hooks.test/a',
      schedule: {
        schedule: { rate: { every: 1, unit: 'day' }, calendar: undefined, at: undefined, timezone: undefined, schedule_state: undefined },
        state: 'active',
        anchorAt: new Date(),
        nextDueAt: null,
        lastFiring: { dueAt: new Date(), dueAtMicros: '0', firedAt: new Date(), outcome: 'skipped_previous_running', runId: null },
      },
    };
    expect(jobAnswer.parse(presentJob(scheduled))).toEqual(presentJob(scheduled));
    expect(jobRun.parse(presentRun({ ...run, failureReason: 'stopped', finishedAt: new Date() }))).toBeDefined();
    expect(
      scheduleFiring.parse(presentFiring({ dueAt: new Date(), dueAtMicros: '0', firedAt: new Date(), outcome: 'started', runId: run.id })),
    ).toBeDefined();
    const result = presentResult(
      {
        seq: 1,
        url: 'https://shop.test/a',
        method: 'GET',
        externalId: null,
        metadata: { n: 1 },
        state: 'carried',
        statusCode: 200,
        outputFormat: 'markdown',
        contentType: 'text/markdown',
        body: Buffer.from('# a'),
        tier: 'basic',
        credits: 1,
        errorCode: null,
        errorDetail: null,
        finishedAt: new Date(),
        cache: 'hit',
        changeStatus: 'changed',
      },
      run.id,
      'https://api.test/downloads/task_contents/t/r/1?expires=1&signature=s',
    );
    expect(taskResult.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      task_id: '1',
      run_id: run.id,
      result_url: expect.stringContaining('/downloads/task_contents/'),
      cache: 'hit',
      change_status: 'changed',
    });
  });
});
