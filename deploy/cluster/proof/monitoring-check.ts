import { metricNames } from '../../monitoring/promql-names';
import { Kube } from './kube';

/**
 * What a Prometheus Operator would scrape, read the way it reads it: every ServiceMonitor of the
 * release names Services by label and a port by name; their Endpoints give the pods. Each pod's
 * /metrics is read from inside the node's network namespace, labelled with the job the monitor's
 * relabeling sets, and every dashboard and alert query installed by the chart (the dashboards'
 * ConfigMaps, the PrometheusRule) is matched against those series.
 */

interface Sample {
  name: string;
  labels: Record<string, string>;
}

interface Target {
  monitor: string;
  job: string;
  pod: string;
  url: string;
}

interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

interface Query {
  source: string;
  expr: string;
}

export interface MonitoringReport {
  targets: number;
  pods: number;
  queries: number;
  withSeries: number;
  waiting: string[];
  external: string[];
  wrong: string[];
  lines: string[];
}

export async function checkMonitoring(kube: Kube, namespace: string): Promise<MonitoringReport> {
  const targets = await targetsOf(kube, namespace);
  const samples: (Sample & { job: string })[] = [];
  const exposed = new Map<string, Set<string>>(); // metric name → jobs exposing it
  for (const target of targets) {
    const scraped = await kube.inNetns('curl', ['-sS', '--fail', '--max-time', '10', target.url]);
    if (scraped.code !== 0) throw new Error(`scrape of ${target.pod} (${target.url}) failed: ${scraped.stderr.trim()}`);
    const parsed = parseExposition(scraped.stdout);
    for (const name of parsed.names) exposed.set(name, new Set([...(exposed.get(name) ?? []), target.job]));
    for (const sample of parsed.samples) samples.push({ ...sample, labels: { ...sample.labels, job: target.job }, job: target.job });
    samples.push({ name: 'up', labels: { job: target.job }, job: target.job });
    exposed.set('up', new Set([...(exposed.get('up') ?? []), target.job]));
  }

  const pods = await kube.json<{ items: any[] }>(['-n', namespace, 'get', 'pods', '-l', 'app.kubernetes.io/instance=trawl']);
  const servicePods = pods.items
    .filter((pod) => pod.status.phase === 'Running' && pod.metadata.labels['app.kubernetes.io/component'] !== 'tests')
    .map((pod) => pod.metadata.name as string);
  const scrapedPods = new Set(targets.map((t) => t.pod));
  const unscraped = servicePods.filter((pod) => !scrapedPods.has(pod));
  if (unscraped.length > 0) throw new Error(`no ServiceMonitor leads to pods ${unscraped.join(', ')}`);

  const report: MonitoringReport = {
    targets: targets.length,
    pods: scrapedPods.size,
    queries: 0,
    withSeries: 0,
    waiting: [],
    external: [],
    wrong: [],
    lines: [],
  };
  for (const query of await queriesOf(kube, namespace)) {
    report.queries++;
    const selectors = selectorsOf(query.expr);
    const ours = selectors.filter((s) => exposed.has(s.name));
    const theirs = selectors.filter((s) => !exposed.has(s.name));
    const lost = theirs.filter((s) => s.name.startsWith('trawl_'));
    if (lost.length > 0) report.wrong.push(`${query.source}: ${lost.map((s) => s.name).join(', ')} exposed by no pod`);
    const misplaced = ours.filter(
      (s) =>
        ![...exposed.get(s.name)!].some((job) =>
          matches(
            { job },
            s.matchers.filter((m) => m.label === 'job'),
          ),
        ),
    );
    for (const s of misplaced)
      report.wrong.push(`${query.source}: ${s.name} not exposed by the job it selects (${[...exposed.get(s.name)!].join(', ')})`);
    const matched = ours.filter((s) => samples.some((sample) => sample.name === s.name && matches(sample.labels, s.matchers)));
    let verdict: string;
    if (matched.length > 0) {
      report.withSeries++;
      verdict = `series (${matched.map((s) => s.name).join(', ')})`;
    } else if (ours.length === 0) {
      report.external.push(`${query.source}: ${theirs.map((s) => s.name).join(', ')}`);
      verdict = `other exporters only (${theirs.map((s) => s.name).join(', ')})`;
    } else {
      report.waiting.push(`${query.source}: ${ours.map((s) => s.name).join(', ')}`);
      verdict = `exposed, no sample yet (${ours.map((s) => s.name).join(', ')})`;
    }
    report.lines.push(`${query.source}\n    ${query.expr.replace(/\s+/g, ' ').trim()}\n    → ${verdict}`);
  }
  return report;
}

async function targetsOf(kube: Kube, namespace: string): Promise<Target[]> {
  const monitors = await kube.json<{ items: any[] }>(['-n', namespace, 'get', 'servicemonitors.monitoring.coreos.com']);
  if (monitors.items.length === 0) throw new Error('the chart made no ServiceMonitor');
  const targets: Target[] = [];
  for (const monitor of monitors.items) {
    const selector = Object.entries(monitor.spec.selector.matchLabels as Record<string, string>)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const services = await kube.json<{ items: any[] }>(['-n', namespace, 'get', 'services', '-l', selector]);
    if (services.items.length === 0) throw new Error(`ServiceMonitor ${monitor.metadata.name} selects no Service (${selector})`);
    for (const endpoint of monitor.spec.endpoints as any[]) {
      const job =
        (endpoint.relabelings as any[] | undefined)?.find((r) => r.targetLabel === 'job')?.replacement ?? services.items[0].metadata.name;
      for (const service of services.items) {
        const endpoints = await kube.json<any>(['-n', namespace, 'get', 'endpoints', service.metadata.name]);
        for (const subset of endpoints.subsets ?? []) {
          const port = (subset.ports as any[]).find((p) => p.name === endpoint.port);
          if (!port)
            throw new Error(
              `Service ${service.metadata.name} has no port named ${endpoint.port} (ServiceMonitor ${monitor.metadata.name})`,
            );
          for (const address of subset.addresses ?? []) {
            targets.push({
              monitor: monitor.metadata.name,
              job,
              pod: address.targetRef?.name ?? address.ip,
              url: `${endpoint.scheme ?? 'http'}://${address.ip}:${port.port}${endpoint.path ?? '/metrics'}`,
            });
          }
        }
      }
    }
  }
  return targets;
}

async function queriesOf(kube: Kube, namespace: string): Promise<Query[]> {
  const queries: Query[] = [];
  const rules = await kube.json<{ items: any[] }>(['-n', namespace, 'get', 'prometheusrules.monitoring.coreos.com']);
  if (rules.items.length === 0) throw new Error('the chart made no PrometheusRule');
  for (const rule of rules.items) {
    for (const group of rule.spec.groups as any[]) {
      for (const r of group.rules as any[]) queries.push({ source: `alert ${r.alert ?? r.record}`, expr: String(r.expr) });
    }
  }
  const maps = await kube.json<{ items: any[] }>(['get', 'configmaps', '-A', '-l', 'app.kubernetes.io/instance=trawl,grafana_dashboard']);
  if (maps.items.length === 0) throw new Error('the chart made no dashboard ConfigMap');
  for (const map of maps.items) {
    for (const [file, json] of Object.entries(map.data as Record<string, string>)) {
      const dashboard = JSON.parse(json);
      const panels = (dashboard.panels ?? []).flatMap((p: any) => (p.type === 'row' ? (p.panels ?? []) : [p]));
      for (const panel of panels) {
        for (const target of panel.targets ?? []) queries.push({ source: `dashboard ${file} › ${panel.title}`, expr: String(target.expr) });
      }
      for (const variable of dashboard.templating?.list ?? []) {
        if (variable.type !== 'query') continue;
        const query = typeof variable.query === 'string' ? variable.query : String(variable.query.query);
        const selector = /^label_values\((.*),\s*\w+\)$/.exec(query)?.[1] ?? query;
        queries.push({ source: `dashboard ${file} › variable ${variable.name}`, expr: selector });
      }
    }
  }
  return queries;
}

/** The vector selectors of an expression: each metric name it reads, with the matchers written beside it. */
export function selectorsOf(expr: string): { name: string; matchers: Matcher[] }[] {
  const selectors: { name: string; matchers: Matcher[] }[] = [];
  for (const name of metricNames(expr)) {
    const pattern = new RegExp(`(?<![A-Za-z0-9_:])${name}(?![A-Za-z0-9_:])\\s*(\\{((?:[^}"]|"(?:[^"\\\\]|\\\\.)*")*)\\})?`, 'g');
    let found = false;
    for (const match of expr.matchAll(pattern)) {
      found = true;
      selectors.push({ name, matchers: parseMatchers(match[2] ?? '') });
    }
    if (!found) selectors.push({ name, matchers: [] });
  }
  return selectors;
}

/** Label matchers; one whose value holds a Grafana variable ($x, ${x}) matches anything. */
function parseMatchers(body: string): Matcher[] {
  const matchers: Matcher[] = [];
  for (const m of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
    if (/\$/.test(m[3])) continue;
    matchers.push({ label: m[1], op: m[2] as Matcher['op'], value: m[3].replace(/\\(.)/g, '$1') });
  }
  return matchers;
}

function matches(labels: Record<string, string>, matchers: readonly Matcher[]): boolean {
  return matchers.every((m) => {
    const actual = labels[m.label] ?? '';
    switch (m.op) {
      case '=':
        return actual === m.value;
      case '!=':
        return actual !== m.value;
      case '=~':
        return new RegExp(`^(?:${m.value})$`).test(actual);
      case '!~':
        return !new RegExp(`^(?:${m.value})$`).test(actual);
    }
  });
}

/** Metric names a /metrics text declares (histogram and summary series included) and its samples. */
function parseExposition(text: string): { names: Set<string>; samples: Sample[] } {
  const names = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      names.add(type[1]);
      if (type[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(type[1] + s);
      if (type[2] === 'summary') for (const s of ['_sum', '_count']) names.add(type[1] + s);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+/.exec(line);
    if (!sample) continue;
    const labels: Record<string, string> = {};
    for (const l of (sample[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    samples.push({ name: sample[1], labels });
  }
  return { names, samples };
}
