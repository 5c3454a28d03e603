import type { Dashboard } from '@grafana/schema';
import { NS, dashboard, datasourceVariable, namespaceVariable, row, stat, timeseries } from './builder';
import { quantile, rate } from './promql';

export const crawls: Dashboard = dashboard({
  uid: 'trawl-crawls',
  title: 'Trawl / Crawls',
  description: "Crawls from dispatch to result intake: the coordinator's frontier and the workers' crawl pages.",
  variables: [datasourceVariable, namespaceVariable],
  items: [
    stat('Active crawls', { expr: `max(trawl_crawls_active{${NS}})` }, { description: 'Crawls running now (Postgres, at scrape time).' }),
    stat(
      'Pages in flight',
      { expr: `max(trawl_crawl_pages_in_flight{${NS}})` },
      { description: 'Pages dispatched and not yet answered, as the dispatcher last saw them.' },
    ),
    stat(
      'Pages dispatched',
      { expr: rate('trawl_crawl_pages_dispatched_total') },
      { description: 'Page claims published to the workers per second.', unit: 'ops' },
    ),
    stat(
      'Results applied',
      { expr: rate('trawl_crawl_results_applied_total') },
      { description: 'Page results applied per second.', unit: 'ops' },
    ),

    row('Frontier'),
    timeseries(
      'Dispatch and intake',
      [
        { expr: rate('trawl_crawl_pages_dispatched_total'), legend: 'dispatched' },
        { expr: rate('trawl_crawl_results_applied_total'), legend: 'applied' },
        { expr: rate('trawl_crawl_results_stale_total'), legend: 'stale (redelivered, ignored)' },
      ],
      { description: 'Pages published, page results applied, and results ignored because they answered an outdated claim.', unit: 'ops' },
    ),
    timeseries(
      'Intake batch time',
      [
        { expr: quantile(0.5, 'trawl_crawl_intake_batch_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_crawl_intake_batch_seconds'), legend: 'p99' },
      ],
      { description: 'Time to apply one batch of page results in one transaction.', unit: 's' },
    ),
    timeseries(
      'Crawls finished',
      [
        {
          expr: `sum by (status, reason) (increase(trawl_crawls_finished_total{${NS}}[$__rate_interval]))`,
          legend: '{{status}} {{reason}}',
        },
      ],
      {
        description: 'Crawls that ended, by status and reason.',
        stack: true,
      },
    ),
    timeseries('Leases reclaimed', [{ expr: rate('trawl_crawl_leases_reclaimed_total', ['outcome']), legend: '{{outcome}}' }], {
      description: 'Expired page claims queued again (requeued) or given up (abandoned) by the reconciler: workers that die or stall.',
      unit: 'ops',
    }),

    row('Workers'),
    timeseries('Crawl pages by outcome', [{ expr: rate('trawl_worker_pages_total', ['outcome']), legend: '{{outcome}}' }], {
      description: 'Crawl page results published by the workers per second: fetched, failed_billed, failed.',
      unit: 'ops',
      stack: true,
    }),
    timeseries('Crawl pages in flight by worker', [{ expr: `sum by (pod) (trawl_worker_pages_in_flight{${NS}})`, legend: '{{pod}}' }], {
      description: 'Crawl pages being fetched or published, per worker pod.',
    }),
    timeseries(
      'Page load time by tier',
      [
        { expr: quantile(0.5, 'trawl_worker_fetch_seconds', NS, ['tier']), legend: 'p50 {{tier}}' },
        { expr: quantile(0.99, 'trawl_worker_fetch_seconds', NS, ['tier']), legend: 'p99 {{tier}}' },
      ],
      { description: 'Time to load one page, redirects and body included, by tier.', unit: 's' },
    ),
    timeseries(
      'Credits for crawl pages',
      [{ expr: `${rate('trawl_credits_charged_total', ['tier'], `${NS}, product="crawl_page"`)} * 60`, legend: '{{tier}}' }],
      {
        description: 'Credits charged for crawl pages per minute, by tier.',
        stack: true,
      },
    ),

    row('Discovery: sitemaps, robots.txt, maps'),
    timeseries(
      'Crawl sitemap reads',
      [{ expr: `sum by (outcome) (increase(trawl_crawl_sitemaps_read_total{${NS}}[$__rate_interval]))`, legend: '{{outcome}}' }],
      {
        description: "Crawls' sitemaps read (sitemap: include or only), by outcome: read, or failed (the crawl goes on with its links).",
        stack: true,
      },
    ),
    timeseries(
      'Map and sitemap documents',
      [{ expr: rate('trawl_worker_map_documents_total', ['kind', 'outcome']), legend: '{{kind}} {{outcome}}' }],
      {
        description:
          'robots.txt files, sitemaps and pages the workers read for maps and sitemap seeding, by outcome: read, missing (a 4xx where none is required), failed, timed_out.',
        unit: 'ops',
      },
    ),
    timeseries('Maps answered', [{ expr: rate('trawl_map_requests_total', ['code']), legend: '{{code}}' }], {
      description: 'Map API answers per second, by code (OK, or the error code).',
      unit: 'ops',
      stack: true,
    }),
    timeseries(
      'Map time',
      [
        { expr: quantile(0.5, 'trawl_map_request_duration_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_map_request_duration_seconds'), legend: 'p99' },
      ],
      { description: 'Time from a map request received to its answer.', unit: 's' },
    ),
    row('Politeness: per-host limits and back-off'),
    timeseries('Loads held for their host', [{ expr: rate('trawl_host_wait_seconds_count', ['reason']), legend: '{{reason}}' }], {
      description:
        'Page loads per second that waited for their host before starting, by reason: concurrency (HOST_CONCURRENCY_LIMIT), rate (HOST_RATE_LIMIT), backoff (a 429 paused the host).',
      unit: 'ops',
      stack: true,
    }),
    timeseries(
      'Host wait time',
      [
        { expr: quantile(0.5, 'trawl_host_wait_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_host_wait_seconds'), legend: 'p99' },
      ],
      { description: 'How long the loads that waited for their host waited.', unit: 's' },
    ),
    timeseries(
      'Hosts slowing us down',
      [
        { expr: rate('trawl_host_backoffs_total', ['status']), legend: '{{status}} answers' },
        { expr: rate('trawl_host_deferred_total', ['reason']), legend: 'deferred: {{reason}}' },
        { expr: rate('trawl_host_retries_total', []), legend: 'retried after a pause' },
        { expr: rate('trawl_host_store_errors_total', []), legend: 'record unavailable (ungoverned)' },
      ],
      {
        description:
          '429 (and 503 with Retry-After) answers that paused a host for every worker; loads handed back or answered busy because their host could not take them in time; loads sent again after a pause; failed reads of the shared per-host record.',
        unit: 'ops',
      },
    ),
  ],
});
