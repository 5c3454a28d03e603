import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { dashboards } from '../../deploy/monitoring/dashboards';
import { DASHBOARDS_DIR, RULES_FILE } from '../../deploy/monitoring/used-metrics';
import { COMPONENTS, K8sObject, find, only, render } from './support/chart';
import { modelValidate, typedCheck } from './support/typed-check';

const MONITORING_API = ['monitoring.coreos.com/v1'];
const DEFAULT_RUNBOOKS = 'https://github.com/trawl-dev/trawl/blob/main/docs/runbooks.md';

function monitoringObjects(objects: K8sObject[]): K8sObject[] {
  return objects.filter(
    (o) =>
      ['ServiceMonitor', 'PodMonitor', 'PrometheusRule'].includes(o.kind) ||
      (o.kind === 'ConfigMap' && o.metadata.name.includes('-dashboard-')),
  );
}

describe("The chart's monitoring objects", () => {
  let withApi: K8sObject[];
  let withoutApi: K8sObject[];

  beforeAll(async () => {
    [withApi, withoutApi] = await Promise.all([render({ apiVersions: MONITORING_API }), render()]);
  }, 60_000);

  it('render ServiceMonitors and the PrometheusRule only when the cluster serves monitoring.coreos.com/v1; dashboards either way', () => {
    expect(find(withApi, 'ServiceMonitor')).toHaveLength(5);
    expect(find(withApi, 'PrometheusRule')).toHaveLength(1);
    expect(find(withoutApi, 'ServiceMonitor')).toEqual([]);
    expect(find(withoutApi, 'PrometheusRule')).toEqual([]);
    expect(
      monitoringObjects(withoutApi)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(
      Object.keys(dashboards)
        .map((name) => `trawl-dashboard-${name.replace(/^trawl-/, '')}`)
        .sort(),
    );
  });

  it('are valid Prometheus Operator and Kubernetes objects (typed models, and their validate())', () => {
    const objects = monitoringObjects(withApi);
    expect(typedCheck(objects)).toEqual([]);
    expect(modelValidate(objects)).toEqual([]);
  }, 60_000);

  /** The Service and port each monitor scrapes: the gateway's /metrics is on its admin listener only. */
  const SCRAPED: [string, string, string][] = Object.keys(COMPONENTS).map((c) =>
    c === 'gateway' ? [c, 'trawl-gateway-admin', 'admin'] : [c, `trawl-${c}`, 'http'],
  );

  it.each(SCRAPED)('scrape %s through Service %s, port %s, as job="trawl-<component>"', (component, serviceName, port) => {
    const monitor = only(withApi, 'ServiceMonitor', `trawl-${component}`);
    const service = only(withApi, 'Service', serviceName);
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>))
      expect(service.metadata.labels?.[key]).toBe(value);
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain(port);
    // No other Service of the release matches the selector.
    const selected = find(withApi, 'Service').filter((s) =>
      Object.entries(monitor.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    expect(selected.map((s) => s.metadata.name)).toEqual([serviceName]);
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: ['scrape'] });
    expect(monitor.spec.endpoints).toEqual([
      {
        port,
        path: '/metrics',
        scheme: 'http',
        interval: '30s',
        scrapeTimeout: '10s',
        honorLabels: true,
        // The job the rules and dashboards select by, whichever Service the target comes from.
        relabelings: [{ action: 'replace', targetLabel: 'job', replacement: `trawl-${component}` }],
      },
    ]);
  });

  it("scrape the gateway's /metrics through its admin listener, never the API Service an Ingress may expose", () => {
    const api = only(withApi, 'Service', 'trawl-gateway');
    const admin = only(withApi, 'Service', 'trawl-gateway-admin');
    for (const monitor of find(withApi, 'ServiceMonitor')) {
      const selector = monitor.spec.selector.matchLabels as Record<string, string>;
      expect([monitor.metadata.name, Object.entries(selector).every(([k, v]) => api.metadata.labels?.[k] === v)]).toEqual([
        monitor.metadata.name,
        false,
      ]);
    }
    // The admin Service's port leads to the gateway container's `admin` port (ADMIN_PORT).
    expect(admin.spec.ports).toEqual([expect.objectContaining({ name: 'admin', targetPort: 'admin' })]);
    const container = only(withApi, 'Deployment', 'trawl-gateway').spec.template.spec.containers[0];
    const adminPort = container.ports.find((p: { name: string }) => p.name === 'admin');
    expect(container.env).toContainEqual({ name: 'ADMIN_PORT', value: String(adminPort.containerPort) });
  });

  it('embed the rules file as it is, with runbook links under runbookBaseUrl and the labels asked for', async () => {
    const file = parse(readFileSync(RULES_FILE, 'utf8'));
    expect(only(withApi, 'PrometheusRule', 'trawl').spec).toEqual(file);

    const objects = await render({
      apiVersions: MONITORING_API,
      set: [
        'monitoring.prometheusRule.runbookBaseUrl=https://wiki.example/trawl/runbooks',
        'monitoring.prometheusRule.labels.release=kube-prometheus',
        'monitoring.serviceMonitors.labels.release=kube-prometheus',
        'monitoring.serviceMonitors.interval=15s',
      ],
    });
    const rule = only(objects, 'PrometheusRule', 'trawl');
    expect(rule.metadata.labels).toMatchObject({ release: 'kube-prometheus', 'app.kubernetes.io/instance': 'trawl' });
    const links = rule.spec.groups.flatMap((g: { rules: { alert: string; annotations: { runbook_url: string } }[] }) =>
      g.rules.map((r) => [r.alert, r.annotations.runbook_url]),
    );
    expect(links.length).toBe(13);
    for (const [alert, url] of links) expect(url).toBe(`https://wiki.example/trawl/runbooks#${alert.toLowerCase()}`);
    expect(JSON.stringify(rule.spec)).not.toContain(DEFAULT_RUNBOOKS);
    for (const monitor of find(objects, 'ServiceMonitor')) {
      expect(monitor.metadata.labels?.release).toBe('kube-prometheus');
      expect(monitor.spec.endpoints[0].interval).toBe('15s');
    }
  }, 60_000);

  it('ship each dashboard in a ConfigMap with the sidecar label, in the namespace and with the annotations asked for', async () => {
    for (const name of Object.keys(dashboards)) {
      const map = only(withoutApi, 'ConfigMap', `trawl-dashboard-${name.replace(/^trawl-/, '')}`);
      expect(map.metadata.labels?.grafana_dashboard).toBe('1');
      // Like every other object of the release, it goes where the release goes (helm -n, kustomize).
      expect(map.metadata.namespace).toBeUndefined();
      const json = (map as unknown as { data: Record<string, string> }).data[`${name}.json`];
      expect(JSON.parse(json)).toEqual(JSON.parse(readFileSync(join(DASHBOARDS_DIR, `${name}.json`), 'utf8')));
    }
    const objects = await render({
      set: [
        'monitoring.dashboards.namespace=monitoring',
        'monitoring.dashboards.label=grafana_dashboard_trawl',
        'monitoring.dashboards.labelValue=yes',
        'monitoring.dashboards.annotations.grafana_folder=Trawl',
      ],
    });
    for (const map of monitoringObjects(objects)) {
      expect(map.metadata).toMatchObject({
        namespace: 'monitoring',
        labels: { grafana_dashboard_trawl: 'yes' },
        annotations: { grafana_folder: 'Trawl' },
      });
    }
  }, 60_000);

  it('render nothing of what is turned off', async () => {
    const objects = await render({
      apiVersions: MONITORING_API,
      set: ['monitoring.serviceMonitors.enabled=false', 'monitoring.prometheusRule.enabled=false', 'monitoring.dashboards.enabled=false'],
    });
    expect(monitoringObjects(objects)).toEqual([]);
  }, 60_000);
});
