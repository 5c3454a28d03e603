import { runEventBody, testEventBody } from './webhook-body';

const stats = { total: 3, completed: 3, successful: 2, failed: 1, spend: { credits: 20, cost: 0.002 } };
const event = {
  v: 1 as const,
  event_id: '6f1c1e4e-8a0c-4d59-9f6a-1b2c3d4e5f60',
  event_type: 'run.completed' as const,
  occurred_at: '2026-11-23T10:00:00.123Z',
  tenant_id: '0b7e3c1a-1111-4222-8333-444455556666',
  job_id: 'job-1',
  run_id: 'run-1',
  run_sequence: 2,
  stats,
  webhook: { url: 'https://hooks.test/x', signature: true },
};

describe('runEventBody', () => {
  it('carries the spec fields and nothing internal', () => {
    expect(runEventBody(event)).toEqual({
      schema: 'service.webhook/v1',
      event_id: event.event_id,
      event_type: 'run.completed',
      occurred_at: '2026-11-23T10:00:00.123Z',
      job_id: 'job-1',
      run_id: 'run-1',
      run_sequence: 2,
      stats,
    });
  });

  it("adds a monitor's changes when the run tracked them", () => {
    const changes = {
      new: 0,
      same: 2,
      changed: 1,
      removed: 0,
      pages: [{ task_id: '3', url: 'https://changing.test/', external_id: null, change_status: 'changed' as const }],
      pages_truncated: false,
    };
    expect(runEventBody({ ...event, changes })).toMatchObject({ stats, changes });
  });

  it('adds failure_reason and failure_detail to run.failed', () => {
    const body = runEventBody({ ...event, event_type: 'run.failed', failure_reason: 'insufficient_credits', failure_detail: null });
    expect(body).toMatchObject({ failure_reason: 'insufficient_credits', failure_detail: '' });
  });
});

describe('testEventBody', () => {
  it('is the same schema with the job and run fields null', () => {
    const body = testEventBody(new Date('2026-11-23T10:00:00Z'), 'e');
    expect(body).toEqual({
      schema: 'service.webhook/v1',
      event_id: 'e',
      event_type: 'webhook.test',
      occurred_at: '2026-11-23T10:00:00.000Z',
      job_id: null,
      run_id: null,
      run_sequence: null,
      stats: null,
    });
  });
});
