import type { Dashboard } from '@grafana/schema';
import { NS, dashboard, datasourceVariable, namespaceVariable, row, stat, timeseries } from './builder';
import { quantile, rate } from './promql';

const WORKER = `job="trawl-fetch-worker", ${NS}`;

export const fetchDashboard: Dashboard = dashboard({
  uid: 'trawl-fetch',
  title: 'Trawl / Fetch and browser pool',
  description:
    "The Fetch API from the gateway to the fetch workers, the workers' engines and their Chromium pool. Replicas and the autoscaler come from kube-state-metrics.",
  variables: [datasourceVariable, namespaceVariable],
  items: [
    stat(
      'Fetch slots in use',
      { expr: `sum(trawl_fetch_slots_in_use{${NS}})` },
      { description: 'Tenant concurrency slots held by Fetch requests, all gateway replicas.' },
    ),
    stat(
      'Worker Fetch requests in flight',
      { expr: `sum(trawl_worker_fetch_requests_in_flight{${NS}})` },
      { description: 'Fetch requests being served by the workers now.' },
    ),
    stat(
      'Browser pages waiting',
      { expr: `sum(trawl_worker_browser_pages{${NS}, state="waiting"})` },
      {
        description:
          'Requests waiting for a browser page (alert TrawlFetchWorkersSaturated when the workers are at their maximum replicas).',
        thresholds: [
          { value: null, color: 'green' },
          { value: 1, color: 'orange' },
        ],
      },
    ),
    stat('Fetch workers up', { expr: `sum(up{${WORKER}})` }, { description: 'Fetch worker targets answering /metrics.' }),
    stat(
      'Autoscaler replicas / max',
      {
        expr: `max(kube_horizontalpodautoscaler_status_current_replicas{${NS}, horizontalpodautoscaler=~"(keda-hpa-)?.+-fetch-worker"}) / max(kube_horizontalpodautoscaler_spec_max_replicas{${NS}, horizontalpodautoscaler=~"(keda-hpa-)?.+-fetch-worker"})`,
      },
      {
        description:
          "Fetch worker replicas as a share of the autoscaler's maximum (KEDA's keda-hpa-<name> or the chart's HPA; kube-state-metrics).",
        unit: 'percentunit',
        max: 1,
      },
    ),
    stat(
      'Browser launch failures (1h)',
      { expr: `sum(increase(trawl_worker_browser_events{${NS}, event="launch_failed"}[1h]))` },
      {
        description: 'Chromium launches that failed in the last hour (alert TrawlBrowserLaunchFailures).',
        thresholds: [
          { value: null, color: 'green' },
          { value: 1, color: 'red' },
        ],
      },
    ),

    row('Gateway'),
    timeseries('Fetch answers by code', [{ expr: rate('trawl_fetch_requests_total', ['code']), legend: '{{code}}' }], {
      description: 'Fetch API answers per second by code (alert TrawlFetchErrorRatioHigh on ERR0000, ERR0001, RESP009, CTX0002).',
      unit: 'reqps',
      stack: true,
    }),
    timeseries('Fetch billed tiers', [{ expr: rate('trawl_fetch_requests_total', ['tier']), legend: '{{tier}}' }], {
      description: 'Fetch answers per second by the tier billed (none when free).',
      unit: 'reqps',
      stack: true,
    }),
    timeseries(
      'Fetch latency by code',
      [
        { expr: quantile(0.5, 'trawl_fetch_request_duration_seconds', NS, ['code']), legend: 'p50 {{code}}' },
        { expr: quantile(0.99, 'trawl_fetch_request_duration_seconds', NS, ['code']), legend: 'p99 {{code}}' },
      ],
      { description: 'Time from a Fetch request received to its answer ready, by code.', unit: 's' },
    ),
    timeseries(
      'Admission and release in Postgres (p99)',
      [
        { expr: quantile(0.99, 'trawl_fetch_limits_seconds', NS, ['step']), legend: '{{step}}' },
        { expr: quantile(0.99, 'trawl_fetch_admission_batch_requests', NS), legend: 'requests per admission (p99)' },
      ],
      {
        description:
          "Postgres steps on a Fetch request's path (admit: rate window, account, slot; release), and how many requests of a tenant one admission statement took.",
        unit: 's',
      },
    ),
    timeseries('Admissions by what admitted them', [{ expr: rate('trawl_fetch_admissions_total', ['by']), legend: '{{by}}' }], {
      description:
        "Fetch requests admitted per second: by a Postgres statement, or by the replica's allotment of a busy tenant's limits (requests set aside by an earlier statement, a slot kept between requests). A busy tenant far from its limits is mostly admitted by allotment; near a limit, every request is a statement.",
      unit: 'reqps',
      stack: true,
    }),
    timeseries('Head starts', [{ expr: rate('trawl_fetch_head_starts_total', ['outcome']), legend: '{{outcome}}' }], {
      description:
        'Requests sent to a worker before admission returned: admitted, or called_off (wasted work) when admission refused them.',
      unit: 'ops',
    }),
    timeseries('Workers not taking requests', [{ expr: rate('trawl_fetch_worker_not_taken_total', ['reason']), legend: '{{reason}}' }], {
      description:
        'Workers that did not take a Fetch request: busy (no free slot) or late (no accept within FETCH_RPC_ACCEPT_TIMEOUT_MS: a worker lost or stalled). Each is asked of another worker; RESP009 once FETCH_RPC_BUSY_RETRIES are spent. Late ones are not a capacity problem.',
      unit: 'ops',
    }),
    timeseries(
      'Proxy mode',
      [
        { expr: rate('trawl_proxy_mode_requests_total', ['outcome']), legend: 'request {{outcome}}' },
        { expr: rate('trawl_proxy_mode_connects_total', ['outcome']), legend: 'CONNECT {{outcome}}' },
        { expr: rate('trawl_proxy_mode_certificates_issued_total'), legend: 'certificates issued' },
        { expr: `sum(trawl_proxy_mode_tunnels_open{${NS}})`, legend: 'tunnels open' },
      ],
      {
        description:
          'Proxy mode (HTTP forward proxy on the gateway): requests and CONNECTs by outcome per second, certificates signed, tunnels open.',
      },
    ),

    row('Workers'),
    timeseries('Worker Fetch answers by code', [{ expr: rate('trawl_worker_fetch_requests_total', ['code']), legend: '{{code}}' }], {
      description: 'Fetch API requests answered by the workers per second, by code.',
      unit: 'reqps',
      stack: true,
    }),
    timeseries(
      'Fetch requests in flight by worker',
      [{ expr: `sum by (pod) (trawl_worker_fetch_requests_in_flight{${NS}})`, legend: '{{pod}}' }],
      {
        description: 'Fetch requests being served, per worker pod (the KEDA fetchRequests trigger scales on their sum).',
      },
    ),
    timeseries(
      'Worker Fetch answer time',
      [
        { expr: quantile(0.5, 'trawl_worker_fetch_request_seconds'), legend: 'p50' },
        { expr: quantile(0.99, 'trawl_worker_fetch_request_seconds'), legend: 'p99' },
      ],
      {
        description: "Time from a worker taking a Fetch request to its answer: the gateway's Fetch latency less admission and transport.",
        unit: 's',
      },
    ),
    timeseries('Page load time by tier (p99)', [{ expr: quantile(0.99, 'trawl_worker_fetch_seconds', NS, ['tier']), legend: '{{tier}}' }], {
      description: 'Time to load one page, redirects and body included, by engine tier (crawl pages, batch tasks and Fetch requests).',
      unit: 's',
    }),
    timeseries(
      'Blocked attempts (adaptive stealth)',
      [{ expr: rate('trawl_worker_stealth_blocked_attempts_total', ['tier', 'reason']), legend: '{{tier}} {{reason}}' }],
      {
        description: 'Attempts found blocked in mode=auto, by tier and reason: a rising rate means targets block the lower tiers.',
        unit: 'ops',
      },
    ),
    timeseries('Kept copies (max_age)', [{ expr: rate('trawl_page_copies_total', ['outcome']), legend: '{{outcome}}' }], {
      description:
        'Requests with max_age (Fetch and batch tasks): hit (answered from a copy, 1 credit), miss (fetched), kept, too_large (not kept), failed (the copy store could not be read or written).',
      unit: 'ops',
    }),
    timeseries('Change tracking', [{ expr: rate('trawl_page_changes_total', ['status']), legend: '{{status}}' }], {
      description:
        'Pages compared with change_tracking, by verdict: new, same, changed, removed, or failed (the version store could not be read or written; answered without a verdict).',
      unit: 'ops',
    }),

    row('Extract'),
    timeseries('Extract domains by status', [{ expr: `max by (status) (trawl_extract_domains{${NS}})`, legend: '{{status}}' }], {
      description:
        'Prepared domains by status (Postgres, at scrape time): queued and preparing should drain; failed ones can be asked for again.',
      stack: true,
    }),
    timeseries('Preparations', [{ expr: rate('trawl_extract_preparation_deliveries_total', ['outcome']), legend: '{{outcome}}' }], {
      description:
        'Preparation messages dealt with by the schedulers: ready, failed, lost (another preparer took over), stale, retried (an error; nak with delay).',
      unit: 'ops',
    }),
    timeseries('Preparation pages', [{ expr: rate('trawl_extract_preparation_pages_total', ['result']), legend: '{{result}}' }], {
      description:
        "Pages preparations fetched: learnable (2xx HTML), not_learnable, failed (the worker's error code is in the scheduler's log).",
      unit: 'ops',
    }),
    timeseries(
      'Recipe time',
      [
        { expr: quantile(0.99, 'trawl_worker_extract_apply_seconds'), legend: 'apply p99 (worker)' },
        { expr: quantile(0.5, 'trawl_worker_extract_apply_seconds'), legend: 'apply p50 (worker)' },
        { expr: quantile(0.99, 'trawl_extract_learn_seconds'), legend: 'learn p99 (scheduler)' },
      ],
      {
        description:
          "Applying a recipe to a page on a worker (parsing included; about 10 ms for a 200 KB page), and learning one from a preparation's pages.",
        unit: 's',
      },
    ),

    row('Browser pool'),
    timeseries('Browser pages by state', [{ expr: `sum by (state) (trawl_worker_browser_pages{${NS}})`, legend: '{{state}}' }], {
      description: 'Pages rendering (active), requests waiting for a slot, pages parked for reuse: all workers.',
    }),
    timeseries(
      'Browser events',
      [{ expr: `sum by (event) (increase(trawl_worker_browser_events{${NS}}[$__rate_interval]))`, legend: '{{event}}' }],
      {
        description:
          'Browsers launched, crashed, failed to launch, retired; requests served by a reused page; pages closed unwipeable or unresponsive. The series count since each worker started; increase() reads them like counters.',
      },
    ),
    timeseries('Worker event loop lag (p99)', [{ expr: `max by (pod) (nodejs_eventloop_lag_p99_seconds{${WORKER}})`, legend: '{{pod}}' }], {
      description: 'Event loop delay of each worker (prom-client default metric): a busy loop delays every request the worker holds.',
      unit: 's',
    }),
    timeseries('Worker memory', [{ expr: `sum by (pod) (process_resident_memory_bytes{${WORKER}})`, legend: '{{pod}}' }], {
      description: "Resident memory of each worker's Node process (Chromium's processes are not included).",
      unit: 'bytes',
    }),
  ],
});
