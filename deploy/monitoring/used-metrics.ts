import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Dashboard, Panel, RowPanel } from '@grafana/schema';
import { parse } from 'yaml';
import { dashboards } from './dashboards';
import { metricNames } from './promql-names';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const CHART_DIR = join(REPO_ROOT, 'deploy', 'helm', 'trawl');
/** The alerts: one plain Prometheus rules file, read by promtool and embedded by the chart. */
export const RULES_FILE = join(CHART_DIR, 'files', 'prometheus-rules.yaml');
export const RULES_TEST_FILE = join(REPO_ROOT, 'deploy', 'monitoring', 'rules.test.yaml');
export const DASHBOARDS_DIR = join(CHART_DIR, 'files', 'dashboards');

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function loadAlertRules(file = RULES_FILE): AlertRule[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] };
  return doc.groups.flatMap((group) => group.rules);
}

export interface PanelQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

export function panelsOf(dashboard: Dashboard): Panel[] {
  return (dashboard.panels ?? []).flatMap((p: Panel | RowPanel) => (p.type === 'row' ? ((p as RowPanel).panels ?? []) : [p as Panel]));
}

/** Every PromQL expression of every dashboard: panel targets and query variables. */
export function dashboardQueries(): PanelQuery[] {
  const queries: PanelQuery[] = [];
  for (const [name, dashboard] of Object.entries(dashboards)) {
    for (const panel of panelsOf(dashboard)) {
      for (const target of panel.targets ?? []) queries.push({ dashboard: name, panel: panel.title ?? '', expr: String(target.expr) });
    }
    for (const variable of dashboard.templating?.list ?? []) {
      if (variable.type !== 'query') continue;
      const query = typeof variable.query === 'string' ? variable.query : String((variable.query as { query: string }).query);
      // label_values(<series selector>, <label>): the selector is what Prometheus reads.
      const selector = /^label_values\((.*),\s*\w+\)$/.exec(query)?.[1] ?? query;
      queries.push({ dashboard: name, panel: `variable ${variable.name}`, expr: selector });
    }
  }
  return queries;
}

/** Metric name → where it is used (`<dashboard> / <panel>` or `alert <name>`). */
export function usedMetrics(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const add = (name: string, where: string) => used.set(name, [...(used.get(name) ?? []), where]);
  for (const q of dashboardQueries()) for (const name of metricNames(q.expr)) add(name, `${q.dashboard} / ${q.panel}`);
  for (const rule of loadAlertRules()) for (const name of metricNames(rule.expr)) add(name, `alert ${rule.alert}`);
  return used;
}
