import type { Dashboard } from '@grafana/schema';
import { NS, dashboard, datasourceVariable, namespaceVariable, row, stat, timeseries } from './builder';
import { quantile, rate } from './promql';

export const batch: Dashboard = dashboard({
  uid: 'trawl-batch',
  title: 'Trawl / Batch and webhooks',
  description: 'Batch runs and their tasks (scheduler and workers), schedules, CSV and export transfers, and signed webhook delivery.',
  variables: [datasourceVariable, namespaceVariable],
  items: [
    stat(
      'Active runs',
      { expr: `sum(max by (status) (trawl_batch_runs_active{${NS}}))` },
      { description: 'Batch runs queued, running or paused (Postgres, at scrape time).' },
    ),
    stat(
      'Tasks dispatched',
      { expr: rate('trawl_batch_tasks_dispatched_total') },
      { description: 'Batch tasks published to the workers per second.', unit: 'ops' },
    ),
    stat(
      'Scheduler leaders',
      { expr: `sum(trawl_scheduler_leader{${NS}})` },
      {
        description: 'Scheduler replicas holding the schedule lease: 1 is right (alert TrawlSchedulerNoLeader on 0).',
        thresholds: [
          { value: null, color: 'red' },
          { value: 1, color: 'green' },
          { value: 2, color: 'red' },
        ],
      },
    ),
    stat(
      'Webhook deliveries due',
      { expr: `max(trawl_webhook_deliveries_due{${NS}})` },
      { description: 'Deliveries due and not yet taken by a dispatcher (the backlog).' },
    ),

    row('Runs and tasks'),
    timeseries('Active runs by status', [{ expr: `max by (status) (trawl_batch_runs_active{${NS}})`, legend: '{{status}}' }], {
      description: 'Batch runs queued, running or paused.',
      stack: true,
    }),
    timeseries(
      'Run transitions',
      [{ expr: `sum by (to) (increase(trawl_batch_run_transitions_total{${NS}}[$__rate_interval]))`, legend: '{{to}}' }],
      {
        description: 'Runs moved to running, completed or failed.',
      },
    ),
    timeseries(
      'Task dispatch and results',
      [
        { expr: rate('trawl_batch_tasks_dispatched_total'), legend: 'dispatched' },
        { expr: rate('trawl_batch_task_results_total', ['outcome', 'state']), legend: '{{outcome}} {{state}}' },
      ],
      {
        description: 'Tasks published, and task results taken in by outcome (applied, ignored for late or duplicate, released) and state.',
        unit: 'ops',
      },
    ),
    timeseries('Task leases expired', [{ expr: rate('trawl_batch_task_leases_expired_total', ['outcome']), legend: '{{outcome}}' }], {
      description: 'Task claims whose lease ran out: requeued, or failed after too many attempts.',
      unit: 'ops',
    }),
    timeseries('Worker batch tasks by outcome', [{ expr: rate('trawl_worker_batch_tasks_total', ['outcome']), legend: '{{outcome}}' }], {
      description: 'Batch tasks dealt with by the workers: succeeded, failed, stale, handed_back.',
      unit: 'ops',
      stack: true,
    }),
    timeseries('Worker batch tasks in flight', [{ expr: `sum by (pod) (trawl_worker_batch_tasks_in_flight{${NS}})`, legend: '{{pod}}' }], {
      description: 'Batch tasks being run or published, per worker pod.',
    }),

    row('Schedules'),
    timeseries(
      'Schedule firings',
      [{ expr: `sum by (outcome) (increase(trawl_schedule_firings_total{${NS}}[$__rate_interval]))`, legend: '{{outcome}}' }],
      {
        description: 'Due times dealt with, by outcome (started, skipped_*, duplicate, error).',
      },
    ),
    timeseries(
      'Schedule lag',
      [
        { expr: quantile(0.5, 'trawl_schedule_lag_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_schedule_lag_seconds'), legend: 'p99' },
      ],
      { description: 'Time from a due time to its firing recorded (alert TrawlSchedulerLagging on p99 over 2 minutes).', unit: 's' },
    ),
    timeseries(
      'Leadership',
      [
        { expr: `sum by (pod) (trawl_scheduler_leader{${NS}})`, legend: 'leader {{pod}}' },
        { expr: `sum by (change) (increase(trawl_scheduler_leadership_changes_total{${NS}}[$__rate_interval]))`, legend: '{{change}}' },
      ],
      { description: 'Which replica holds the schedule lease, and leases acquired or lost.' },
    ),
    timeseries(
      'CSV and export transfers',
      [
        { expr: `sum(trawl_gateway_file_transfers{${NS}})`, legend: 'in progress' },
        { expr: rate('trawl_gateway_file_transfers_refused_total'), legend: 'refused per second (transfers_busy)' },
      ],
      {
        description:
          'CSV uploads and export downloads in progress on the gateways (each holds a Postgres connection), and those refused with 503 transfers_busy.',
      },
    ),

    row('Webhooks'),
    timeseries('Webhook attempts by outcome', [{ expr: rate('trawl_webhook_attempts_total', ['outcome']), legend: '{{outcome}}' }], {
      description:
        'Delivery attempts: delivered, retry_scheduled (failed, tried again later), failed (given up). Alert TrawlWebhookFailureRatioHigh.',
      unit: 'ops',
      stack: true,
    }),
    timeseries(
      'Webhook attempt time',
      [
        { expr: quantile(0.5, 'trawl_webhook_attempt_seconds', NS, ['result']), legend: 'p50 {{result}}' },
        { expr: quantile(0.99, 'trawl_webhook_attempt_seconds', NS, ['result']), legend: 'p99 {{result}}' },
      ],
      { description: "Time of one attempt, from connect to the receiver's full answer.", unit: 's' },
    ),
    timeseries(
      'Webhook intake and backlog',
      [
        { expr: rate('trawl_webhook_events_accepted_total'), legend: 'events accepted per second' },
        { expr: `max(trawl_webhook_deliveries_due{${NS}})`, legend: 'deliveries due' },
      ],
      { description: 'Run events taken in as deliveries, and deliveries due and not yet taken.' },
    ),
  ],
});
