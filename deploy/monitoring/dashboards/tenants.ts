import type { Dashboard } from '@grafana/schema';
import { NS, customVariable, dashboard, datasourceVariable, namespaceVariable, queryVariable, row, table, timeseries } from './builder';

const TENANT = `${NS}, tenant_id=~"$tenant"`;

export const tenants: Dashboard = dashboard({
  uid: 'trawl-tenants',
  title: 'Trawl / Tenants',
  description:
    'Top tenants by credits and requests. Cardinality: trawl_tenant_requests_total and trawl_tenant_credits_total carry tenant_id and product; ' +
    'each process labels at most 200 distinct tenants by id and counts any later one as tenant_id="other", so a process exports at most ' +
    '201 × 3 series of each. Tenant ids, not names: look a name up with the admin API (GET /admin/v1/tenants/<id>).',
  variables: [
    datasourceVariable,
    namespaceVariable,
    customVariable('k', 'Top', ['10', '5', '20', '50']),
    queryVariable('tenant', 'Tenant', `label_values(trawl_tenant_requests_total{${NS}}, tenant_id)`),
  ],
  items: [
    row('Top tenants over the time range'),
    table(
      'Top tenants by credits',
      [{ expr: `topk($k, sum by (tenant_id) (increase(trawl_tenant_credits_total{${TENANT}}[$__range])))` }],
      {
        description: "Credits charged in the dashboard's time range, every product.",
      },
    ),
    table(
      'Top tenants by requests',
      [{ expr: `topk($k, sum by (tenant_id) (increase(trawl_tenant_requests_total{${TENANT}}[$__range])))` }],
      {
        description: "Fetch requests answered, crawl pages and batch tasks with a result in the dashboard's time range.",
      },
    ),

    row('Over time'),
    timeseries(
      'Credits per minute, top tenants',
      [
        {
          expr: `topk($k, sum by (tenant_id) (rate(trawl_tenant_credits_total{${TENANT}}[$__rate_interval]))) * 60`,
          legend: '{{tenant_id}}',
        },
      ],
      {
        description: 'Credits charged per minute by the tenants charging most at each moment.',
      },
    ),
    timeseries(
      'Requests per second, top tenants',
      [{ expr: `topk($k, sum by (tenant_id) (rate(trawl_tenant_requests_total{${TENANT}}[$__rate_interval])))`, legend: '{{tenant_id}}' }],
      {
        description: 'Requests per second (Fetch, crawl pages, batch tasks) by the busiest tenants at each moment.',
        unit: 'reqps',
      },
    ),
    timeseries(
      'Requests by product (selected tenants)',
      [{ expr: `sum by (product) (rate(trawl_tenant_requests_total{${TENANT}}[$__rate_interval]))`, legend: '{{product}}' }],
      {
        description: 'Requests per second of the tenants picked in the Tenant variable, by product (fetch, crawl_page, batch).',
        unit: 'reqps',
        stack: true,
      },
    ),
    timeseries(
      'Credits by product (selected tenants)',
      [{ expr: `sum by (product) (rate(trawl_tenant_credits_total{${TENANT}}[$__rate_interval])) * 60`, legend: '{{product}}' }],
      {
        description: 'Credits per minute of the tenants picked in the Tenant variable, by product.',
        stack: true,
      },
    ),
  ],
});
