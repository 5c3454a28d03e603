import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardJson, dashboards } from '../../deploy/monitoring/dashboards';
import { EXTERNAL_METRICS } from '../../deploy/monitoring/external-metrics';
import { metricNames } from '../../deploy/monitoring/promql-names';
import { checkExpressions, grafanaToPromql } from '../../deploy/monitoring/promtool';
import { DASHBOARDS_DIR, dashboardQueries, panelsOf } from '../../deploy/monitoring/used-metrics';

/** Names Trawl's services export (checked against live /metrics by test/e2e/metrics-names.e2e-spec.ts). */
const TRAWL_METRIC = /^(trawl_|http_request_duration_seconds_|nodejs_|process_)/;

/**
 * The dashboards are TypeScript values typed with @grafana/schema (deploy/monitoring/dashboards),
 * so `make typecheck` checks their fields; the chart ships their JSON, which must be exactly what
 * the builders make. `TRAWL_WRITE_DASHBOARDS=1` writes it instead of comparing.
 */
describe('Grafana dashboards', () => {
  const entries = Object.entries(dashboards);

  if (process.env.TRAWL_WRITE_DASHBOARDS === '1') {
    it('writes the JSON files', () => {
      mkdirSync(DASHBOARDS_DIR, { recursive: true });
      for (const [name, dashboard] of entries) writeFileSync(join(DASHBOARDS_DIR, `${name}.json`), dashboardJson(dashboard));
    });
  }

  it('ships exactly the JSON the builders make, one file per dashboard', () => {
    expect(readdirSync(DASHBOARDS_DIR).sort()).toEqual(entries.map(([name]) => `${name}.json`).sort());
    for (const [name, dashboard] of entries) {
      expect({ name, json: readFileSync(join(DASHBOARDS_DIR, `${name}.json`), 'utf8') }).toEqual({ name, json: dashboardJson(dashboard) });
    }
  });

  it('has stable, unique uids and titles', () => {
    expect(entries.map(([, d]) => d.uid)).toEqual([
      'trawl-overview',
      'trawl-fetch',
      'trawl-crawls',
      'trawl-batch',
      'trawl-tenants',
      'trawl-jetstream',
    ]);
    for (const [name, dashboard] of entries) expect(dashboard.uid).toBe(name);
    expect(new Set(entries.map(([, d]) => d.title)).size).toBe(entries.length);
  });

  it.each(entries)('%s: a prometheus datasource variable every query reads, unique panel ids, a grid of 24 columns', (_name, dashboard) => {
    const variables = dashboard.templating?.list ?? [];
    expect(variables[0]).toMatchObject({ name: 'datasource', type: 'datasource', query: 'prometheus' });
    expect(new Set(variables.map((v) => v.name)).size).toBe(variables.length);
    for (const variable of variables.filter((v) => v.type === 'query'))
      expect(variable.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });

    const all = dashboard.panels ?? [];
    const ids = all.map((p) => p.id);
    expect(ids.every((id) => typeof id === 'number')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const panels = panelsOf(dashboard);
    expect(panels.filter((p) => p.type !== 'row').length).toBeGreaterThan(3);
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect({ panel: panel.title, datasource: panel.datasource }).toEqual({
        panel: panel.title,
        datasource: { type: 'prometheus', uid: '${datasource}' },
      });
      expect(panel.description).toBeTruthy();
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      const { x, w } = panel.gridPos!;
      expect(x + w).toBeLessThanOrEqual(24);
    }
  });

  it('has PromQL that promtool parses, in every panel and query variable', async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(80);
    await checkExpressions(queries.map((q) => grafanaToPromql(q.expr)));
  });

  it('has a PromQL check that fails on a broken expression', async () => {
    await expect(checkExpressions(['sum(rate(trawl_fetch_requests_total[5m])'])).rejects.toThrow(/promtool check rules/);
  });

  it("names only Trawl's own metrics or external ones listed with their source", () => {
    const unknown = dashboardQueries().flatMap((q) =>
      metricNames(q.expr)
        .filter((name) => !TRAWL_METRIC.test(`${name}_`) && !(name in EXTERNAL_METRICS))
        .map((name) => `${q.dashboard} / ${q.panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });
});
