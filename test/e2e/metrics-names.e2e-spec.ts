import { EXTERNAL_METRICS } from '../../deploy/monitoring/external-metrics';
import { familyOf } from '../../deploy/monitoring/promql-names';
import { usedMetrics } from '../../deploy/monitoring/used-metrics';
import { Platform, SERVICES, ServiceName } from '../support/platform';

/** Metric families a /metrics page declares (`# TYPE <name> <type>`), with their types. */
function declaredFamilies(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/**
 * Every Trawl metric a Grafana panel or an alert rule names is exported by one of the five services,
 * read from their live /metrics (the `# TYPE` lines, so a metric with no sample yet counts too).
 * Metrics from elsewhere (NATS exporter, kube-state-metrics, `up`) are checked against the list in
 * deploy/monitoring/external-metrics.ts instead, each with its source.
 */
describe('Metric names of the dashboards and alerts (e2e)', () => {
  let platform: Platform;
  const families = new Map<string, { type: string; services: ServiceName[] }>();
  const pages = new Map<ServiceName, string>();

  beforeAll(async () => {
    platform = new Platform('metrics-names', {
      hostMap: 'shop.test=127.0.0.1',
      // One browser, so the worker registers its browser pool's metrics.
      env: { 'fetch-worker': { BROWSERS: '1' } },
    });
    await platform.start();
    for (const service of SERVICES) {
      const res = await fetch(platform.metricsUrl(service));
      expect(res.status).toBe(200);
      pages.set(service, await res.text());
      for (const [name, type] of declaredFamilies(pages.get(service)!)) {
        const seen = families.get(name);
        families.set(name, { type, services: [...(seen?.services ?? []), service] });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  }, 60_000);

  it('finds every Trawl metric used in a panel or an alert in the live /metrics of the services', () => {
    const histograms = new Set([...families].filter(([, f]) => f.type === 'histogram' || f.type === 'summary').map(([name]) => name));
    const missing: string[] = [];
    let checked = 0;
    for (const [name, usedBy] of usedMetrics()) {
      if (name in EXTERNAL_METRICS) continue;
      checked++;
      if (!families.has(familyOf(name, histograms))) missing.push(`${name} (used by ${usedBy.join('; ')})`);
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('reads a histogram series only as _bucket, _sum or _count', () => {
    const histograms = new Set([...families].filter(([, f]) => f.type === 'histogram').map(([name]) => name));
    const bare = [...usedMetrics().keys()].filter((name) => histograms.has(name));
    expect(bare).toEqual([]);
  });

  it('names as external only metrics no Trawl service exports', () => {
    expect(Object.keys(EXTERNAL_METRICS).filter((name) => families.has(name))).toEqual([]);
  });

  it('exports the metrics added for the dashboards from the services that own them', () => {
    const owners = (name: string) => families.get(name)?.services ?? [];
    expect(owners('trawl_credits_charged_total').sort()).toEqual(['crawl-coordinator', 'gateway', 'scheduler']);
    expect(owners('trawl_tenant_requests_total').sort()).toEqual(['crawl-coordinator', 'gateway', 'scheduler']);
    expect(owners('trawl_tenant_credits_total').sort()).toEqual(['crawl-coordinator', 'gateway', 'scheduler']);
    expect(owners('trawl_crawls_active')).toEqual(['crawl-coordinator']);
    expect(owners('trawl_batch_runs_active')).toEqual(['scheduler']);
    expect(owners('trawl_worker_browser_events')).toEqual(['fetch-worker']);
    expect(owners('http_request_duration_seconds')).toEqual(['gateway']);
  });

  it('counts active crawls and runs in Postgres at scrape time, and browser launch failures', () => {
    expect(pages.get('crawl-coordinator')).toMatch(/^trawl_crawls_active\{service="crawl-coordinator"\} 0$/m);
    for (const status of ['queued', 'running', 'paused']) {
      expect(pages.get('scheduler')).toMatch(new RegExp(`^trawl_batch_runs_active\\{status="${status}",service="scheduler"\\} 0$`, 'm'));
    }
    expect(pages.get('fetch-worker')).toMatch(/^trawl_worker_browser_events\{event="launch_failed",service="fetch-worker"\} 0$/m);
  });
});
