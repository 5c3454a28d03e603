import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { testPool, waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { ApiClient, Platform } from '../support/platform';

/**
 * A monitor end to end: a scheduled batch job with `change_tracking` and a webhook, over pages of
 * changing.test that the test rewrites between runs. Each run's `run.completed` reaches a real HTTPS
 * receiver naming the pages that changed or went, and the results say each task's verdict. The
 * public API only, plus the schedule row the scheduler fires (rates fire hourly at the least: the
 * test makes a due time come now, as batch-api's does).
 */
describe('Change monitor (e2e)', () => {
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  let web: FixtureWeb;
  let platform: Platform;
  let pool: Pool;
  let api: ApiClient;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    await receiver.start();
    const caFile = tls.writeCa(join(mkdtempSync(join(tmpdir(), 'trawl-monitor-')), 'ca.pem'));
    platform = new Platform('change-monitor', {
      hostMap: `${fixtureHostMap()},hooks.test=127.0.0.1`,
      services: ['gateway', 'scheduler', 'fetch-worker', 'webhook-dispatcher'],
      env: { all: { NODE_EXTRA_CA_CERTS: caFile }, 'webhook-dispatcher': { WEBHOOK_POLL_INTERVAL_MS: '100' } },
    });
    await platform.start();
    pool = testPool(platform.databaseUrl, 2);
    api = platform.client((await platform.createTenant({ max_active_jobs: 10 })).api_key);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await platform?.stop();
    await receiver.stop();
    await web?.close();
  }, 60_000);

  const fireNow = (jobId: string) =>
    pool.query(`UPDATE job_schedules SET next_due_at = now() - interval '1 second' WHERE job_id = $1`, [jobId]);

  const completedRun = (jobId: string, runSequence: number) =>
    waitFor(
      () =>
        receiver.received.find(
          (r) => r.body?.event_type === 'run.completed' && r.body.job_id === jobId && r.body.run_sequence === runSequence,
        )?.body,
      { timeoutMs: 60_000, intervalMs: 100, what: `run ${runSequence} of ${jobId} announced` },
    );

  it('names in each run’s webhook the pages that changed or went since the last run, and marks each result', async () => {
    const pages = ['/watch/prices', '/watch/terms', '/watch/news', '/watch/offer'];
    for (const path of pages) web.setChangingPage(path, { title: path, paragraphs: [`First text of ${path}.`] });
    const created = await api.request('POST', '/v1/jobs', {
      type: 'scheduled',
      service_params: { change_tracking: true },
      tasks: pages.map((path, i) => ({ url: web.url('changing.test', path), external_id: `watch-${i + 1}` })),
      schedule: { rate: { every: 1, unit: 'hour' } },
      webhook: { url: receiver.url('/monitor'), signature: false },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;

    await fireNow(jobId);
    const first = await completedRun(jobId, 1);
    expect(first.stats).toMatchObject({ total: 4, successful: 4, failed: 0 });
    expect(first.changes).toEqual({ new: 4, same: 0, changed: 0, removed: 0, pages: [], pages_truncated: false });

    web.setChangingPage('/watch/terms', { title: '/watch/terms', paragraphs: ['Terms were rewritten.'] });
    web.setChangingPage('/watch/offer', 'gone');
    await fireNow(jobId);
    const second = await completedRun(jobId, 2);
    expect(second.changes).toEqual({
      new: 0,
      same: 2,
      changed: 1,
      removed: 1,
      pages: [
        { task_id: '2', url: web.url('changing.test', '/watch/terms'), external_id: 'watch-2', change_status: 'changed' },
        { task_id: '4', url: web.url('changing.test', '/watch/offer'), external_id: 'watch-4', change_status: 'removed' },
      ],
      pages_truncated: false,
    });

    // The webhook names the pages; the results are where the text is, filtered to what changed.
    const changed = await api.request('GET', `/v1/jobs/${jobId}/results?run_id=${second.run_id}&change_status=changed,removed`);
    expect(changed.status).toBe(200);
    expect(changed.body.results.map((r: any) => [r.task_id, r.change_status, r.status])).toEqual([
      ['2', 'changed', 'successful'],
      ['4', 'removed', 'failed'],
    ]);
    expect(changed.body.results[0].content).toContain('Terms were rewritten.');
    expect(changed.body.next_cursor).toBeNull();
    const all = await api.request('GET', `/v1/jobs/${jobId}/results?run_id=${second.run_id}`);
    expect(all.body.results.map((r: any) => r.change_status)).toEqual(['same', 'changed', 'same', 'removed']);
    const firstRun = await api.request('GET', `/v1/jobs/${jobId}/results?run_id=${first.run_id}&change_status=new`);
    expect(firstRun.body.results).toHaveLength(4);
  }, 150_000);

  it('refuses a change_status filter it does not know, naming the parameter', async () => {
    const created = await api.request('POST', '/v1/jobs', { tasks: [{ url: web.url('changing.test', '/watch/prices') }] });
    const answer = await api.request('GET', `/v1/jobs/${created.body.job_id}/results?change_status=changed,moved`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body).toMatchObject({ parameter: 'change_status' });
    expect(answer.body.detail).toContain('new, same, changed, removed');
  });

  it('says nothing of changes to the receiver of a job that does not track them', async () => {
    const created = await api.request('POST', '/v1/jobs', {
      tasks: [{ url: web.url('changing.test', '/watch/prices') }],
      webhook: { url: receiver.url('/plain'), signature: false },
    });
    const jobId = created.body.job_id as string;
    const event = await completedRun(jobId, 1);
    expect(event.stats).toMatchObject({ total: 1, successful: 1 });
    expect(event).not.toHaveProperty('changes');
    const results = await api.request('GET', `/v1/jobs/${jobId}/results`);
    expect(results.body.results[0]).not.toHaveProperty('change_status');
  }, 60_000);
});
