import { randomBytes, randomUUID } from 'node:crypto';
import { startTestGateway, TenantCredentials, TestGateway } from './gateway-harness';

jest.setTimeout(60_000);

/**
 * A schedule's due times as the tenant sees them (issue 20 item 7): the scheduler's `schedule_firings`
 * rows, skipped ones with their reason, through `GET /v1/jobs/{id}/schedule/firings` and the job's
 * `schedule.last_firing`. The scheduler's part (apps/scheduler/src/schedules) is played with SQL here:
 * it writes exactly these rows; test/e2e/batch-api.e2e-spec.ts has the real scheduler skip one.
 */
describe('Batch API schedule firings (gateway)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ SECRETS_KEY: randomBytes(32).toString('base64') });
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
  });

  const call = (tenant: TenantCredentials, method: string, path: string, body?: unknown) =>
    gw.request(method, path, { key: tenant.api_key, body });
  const tasks = [{ url: 'https://shop.test/p/1' }, { url: 'https://shop.test/p/2' }];

  async function scheduledJob(tenant: TenantCredentials): Promise<string> {
    const created = await call(tenant, 'POST', '/v1/jobs', { type: 'scheduled', tasks, schedule: { rate: { every: 1, unit: 'hour' } } });
    expect(created.status).toBe(201);
    return created.body.job_id as string;
  }

  /** Plays the scheduler's firing step: one `schedule_firings` row per due time, as `ScheduleFiringService` records it. */
  async function recordFiring(tenant: TenantCredentials, jobId: string, dueAt: string, outcome: string, runId: string | null = null) {
    await gw.sql.query(
      `INSERT INTO schedule_firings (id, tenant_id, job_id, due_at, fired_at, outcome, run_id, leader_epoch)
       VALUES ($1, $2, $3, $4, $4::timestamptz + interval '2 seconds', $5, $6, 1)`,
      [randomUUID(), tenant.tenant_id, jobId, dueAt, outcome, runId],
    );
  }

  it('shows a due time skipped because the previous run was still in flight, with its reason, on the job and in the firings', async () => {
    const tenant = await gw.createTenant({ max_active_jobs: 5 });
    const jobId = await scheduledJob(tenant);
    expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).body.schedule.last_firing).toBeUndefined();
    expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings`)).body).toEqual({ firings: [], next_cursor: null });

    // 10:00 started a run that is still queued at 11:00, so the scheduler skipped 11:00.
    const rerun = await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`);
    expect(rerun.body.status).toBe('queued');
    await recordFiring(tenant, jobId, '2026-06-01T10:00:00Z', 'started', rerun.body.run_id);
    await recordFiring(tenant, jobId, '2026-06-01T11:00:00Z', 'skipped_previous_running');

    const job = await call(tenant, 'GET', `/v1/jobs/${jobId}`);
    expect(job.body.schedule.last_firing).toEqual({
      due_at: '2026-06-01T11:00:00.000Z',
      fired_at: '2026-06-01T11:00:02.000Z',
      status: 'skipped',
      reason: 'run_in_flight',
      detail: expect.stringContaining('previous run'),
    });
    // The run is untouched: skips are not runs, so run statuses and `latest_run` stay as they were.
    expect(job.body.latest_run).toMatchObject({ run_id: rerun.body.run_id, status: 'queued' });
    expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs`)).body.runs).toHaveLength(1);
    expect((await call(tenant, 'GET', '/v1/jobs?type=scheduled')).body.jobs[0].schedule.last_firing.reason).toBe('run_in_flight');

    const firings = await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings`);
    expect(firings.status).toBe(200);
    expect(firings.body).toEqual({
      firings: [
        expect.objectContaining({ due_at: '2026-06-01T11:00:00.000Z', status: 'skipped', reason: 'run_in_flight' }),
        { due_at: '2026-06-01T10:00:00.000Z', fired_at: '2026-06-01T10:00:02.000Z', status: 'started', run_id: rerun.body.run_id },
      ],
      next_cursor: null,
    });
  });

  it('names every reason, filters on status and pages newest first', async () => {
    const tenant = await gw.createTenant();
    const jobId = await scheduledJob(tenant);
    await recordFiring(tenant, jobId, '2026-06-01T05:00:00Z', 'skipped_missed');
    await recordFiring(tenant, jobId, '2026-06-01T06:00:00Z', 'started', randomUUID());
    await recordFiring(tenant, jobId, '2026-06-01T07:00:00Z', 'skipped_quota');
    await recordFiring(tenant, jobId, '2026-06-01T08:00:00.000001Z', 'skipped_job_unavailable');

    const skipped = await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings?status=skipped&limit=2`);
    expect(skipped.body.firings.map((f: { reason: string }) => f.reason)).toEqual(['job_unavailable', 'quota_exceeded']);
    const rest = await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings?status=skipped&limit=2&cursor=${skipped.body.next_cursor}`);
    expect(rest.body).toMatchObject({
      firings: [{ due_at: '2026-06-01T05:00:00.000Z', status: 'skipped', reason: 'missed' }],
      next_cursor: null,
    });
    const started = await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings?status=started`);
    expect(started.body.firings.map((f: { status: string }) => f.status)).toEqual(['started']);

    expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings?status=failed`)).body).toMatchObject({
      status: 400,
      parameter: 'status',
    });
    expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/schedule/firings?cursor=nope`)).body).toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
  });

  it("answers 404 for another tenant's job and 409 job_not_scheduled for a regular job", async () => {
    const owner = await gw.createTenant();
    const jobId = await scheduledJob(owner);
    await recordFiring(owner, jobId, '2026-06-01T11:00:00Z', 'skipped_previous_running');
    const stranger = await gw.createTenant();
    expect((await call(stranger, 'GET', `/v1/jobs/${jobId}/schedule/firings`)).body).toMatchObject({ status: 404, code: 'job_not_found' });
    expect((await call(stranger, 'GET', `/v1/jobs/${randomUUID()}/schedule/firings`)).body).toMatchObject({
      status: 404,
      code: 'job_not_found',
    });

    const regular = await call(owner, 'POST', '/v1/jobs', { tasks });
    expect((await call(owner, 'GET', `/v1/jobs/${regular.body.job_id}/schedule/firings`)).body).toMatchObject({
      status: 409,
      code: 'job_not_scheduled',
    });
  });
});
