import type { Dashboard } from '@grafana/schema';
import { NS, dashboard, datasourceVariable, namespaceVariable, row, stat, timeseries } from './builder';
import { API, GATEWAY, quantile, rate } from './promql';

export const overview: Dashboard = dashboard({
  uid: 'trawl-overview',
  title: 'Trawl / Overview',
  description:
    'Requests, errors, latency, credits and active work of one Trawl installation. Targets: job="trawl-<component>" (the chart\'s ServiceMonitors).',
  variables: [datasourceVariable, namespaceVariable],
  items: [
    stat(
      'API requests',
      { expr: rate('http_request_duration_seconds_count', [], GATEWAY) },
      { description: 'Gateway answers per second, every route.', unit: 'reqps' },
    ),
    stat(
      'API 5xx ratio',
      {
        expr: `${rate('http_request_duration_seconds_count', [], `${API}, status_code=~"5.."`)} / ${rate('http_request_duration_seconds_count', [], API)}`,
      },
      {
        description:
          "Share of server errors among the gateway's answers, the Fetch endpoint excepted (alert TrawlGatewayErrorRatioHigh at 5%).",
        unit: 'percentunit',
        thresholds: [
          { value: null, color: 'green' },
          { value: 0.01, color: 'orange' },
          { value: 0.05, color: 'red' },
        ],
      },
    ),
    stat(
      'Fetch requests',
      { expr: rate('trawl_fetch_requests_total') },
      { description: 'Fetch API answers per second (gateway).', unit: 'reqps' },
    ),
    stat(
      'Credits per minute',
      { expr: `${rate('trawl_credits_charged_total')} * 60` },
      { description: 'Credits charged per minute, every product (Fetch, crawl pages, batch tasks).' },
    ),
    stat(
      'Active crawls',
      { expr: `max(trawl_crawls_active{${NS}})` },
      { description: 'Crawls running now (counted in Postgres at scrape time; max over coordinator replicas).' },
    ),
    stat(
      'Active batch runs',
      { expr: `sum(max by (status) (trawl_batch_runs_active{${NS}}))` },
      { description: 'Batch runs queued, running or paused now (counted in Postgres at scrape time).' },
    ),

    row('Requests and errors'),
    timeseries(
      'API requests by status',
      [{ expr: rate('http_request_duration_seconds_count', ['status_code'], GATEWAY), legend: '{{status_code}}' }],
      {
        description: 'Gateway answers per second by HTTP status, every route.',
        unit: 'reqps',
        stack: true,
      },
    ),
    timeseries(
      'API 5xx by route',
      [
        {
          expr: rate('http_request_duration_seconds_count', ['route', 'method'], `${GATEWAY}, status_code=~"5.."`),
          legend: '{{method}} {{route}}',
        },
      ],
      {
        description:
          'Server errors per second by route pattern (the Fetch endpoint /v1/ answers 5xx for target and capacity reasons too; see its codes below).',
        unit: 'reqps',
      },
    ),
    timeseries('Fetch answers by code', [{ expr: rate('trawl_fetch_requests_total', ['code']), legend: '{{code}}' }], {
      description:
        "Fetch API answers per second by code: OK, or the error code (ERR0000/ERR0001 internal, RESP009 capacity, CTX0002 deadline, AUTH*/REQS* the client's).",
      unit: 'reqps',
      stack: true,
    }),
    timeseries('Services up', [{ expr: `sum by (job) (up{job=~"trawl-.+", ${NS}})`, legend: '{{job}}' }], {
      description: 'Targets answering /metrics, by service (alert TrawlServiceAbsent).',
    }),

    row('Latency'),
    timeseries(
      'API latency (Fetch endpoint excepted)',
      [
        { expr: quantile(0.5, 'http_request_duration_seconds', API), legend: 'p50' },
        { expr: quantile(0.99, 'http_request_duration_seconds', API), legend: 'p99' },
      ],
      {
        description: 'Time from request received to response sent (alert TrawlGatewayLatencyHigh on p99, file transfers excepted).',
        unit: 's',
      },
    ),
    timeseries(
      'Fetch latency',
      [
        { expr: quantile(0.5, 'trawl_fetch_request_duration_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_fetch_request_duration_seconds'), legend: 'p99' },
      ],
      { description: 'Time from a Fetch request received to its answer ready (gateway).', unit: 's' },
    ),

    row('Credits and active work'),
    timeseries(
      'Credits per minute by product',
      [{ expr: `${rate('trawl_credits_charged_total', ['product'])} * 60`, legend: '{{product}}' }],
      {
        description:
          'Credits charged per minute: fetch (gateway), crawl_page (coordinator), batch (scheduler). The ledger in Postgres is the record; these counters are for watching.',
        stack: true,
      },
    ),
    timeseries(
      'Active crawls and runs',
      [
        { expr: `max(trawl_crawls_active{${NS}})`, legend: 'crawls running' },
        { expr: `max by (status) (trawl_batch_runs_active{${NS}})`, legend: 'runs {{status}}' },
      ],
      { description: 'Crawls running and batch runs by status, counted in Postgres at scrape time.' },
    ),
  ],
});
