import {
  type Dashboard,
  type DataSourceRef,
  type GraphFieldConfig,
  type Panel,
  type RowPanel,
  type VariableModel,
  type VizLegendOptions,
  type VizTooltipOptions,
  LegendDisplayMode,
  SortOrder,
  TooltipDisplayMode,
  VariableRefresh,
} from '@grafana/schema';

/**
 * Small builders for Trawl's Grafana dashboards, typed with `@grafana/schema`: a dashboard is a
 * value of its `Dashboard` type, so `make typecheck` (tsc) rejects a misspelt or mistyped field.
 * Panels flow left to right on Grafana's 24-column grid and get ids 1, 2, … in order.
 */

/** Every panel and query variable reads from the dashboard's `datasource` variable. */
export const DATASOURCE: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** Label matcher for the namespaces picked in the `namespace` variable. */
export const NS = 'namespace=~"$namespace"';

export interface Query {
  expr: string;
  /** Grafana legend format, e.g. `{{pod}}`. */
  legend?: string;
  /** An instant query (tables, bar gauges). */
  instant?: boolean;
}

type PanelSpec = Panel & { type: string; title: string };
type Item = { kind: 'panel'; panel: PanelSpec; w: number; h: number } | { kind: 'row'; title: string };

interface Common {
  description: string;
  unit?: string;
  /** Width in grid columns (of 24). */
  width?: number;
  height?: number;
  min?: number;
  max?: number;
}

function targets(queries: Query[]): Array<Record<string, unknown>> {
  return queries.map((q, i) => ({
    refId: String.fromCharCode(65 + i),
    datasource: DATASOURCE,
    expr: q.expr,
    legendFormat: q.legend ?? '__auto',
    range: !q.instant,
    instant: q.instant ?? false,
    ...(q.instant ? { format: 'table' } : {}),
  }));
}

const legend: VizLegendOptions = { showLegend: true, displayMode: LegendDisplayMode.List, placement: 'bottom', calcs: [] };
const tooltip: VizTooltipOptions = { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending };

export function timeseries(title: string, queries: Query[], opts: Common & { stack?: boolean }): Item {
  const custom: GraphFieldConfig = {
    fillOpacity: opts.stack ? 30 : 10,
    lineWidth: 1,
    showPoints: 'never' as GraphFieldConfig['showPoints'],
  };
  if (opts.stack) custom.stacking = { mode: 'normal' as NonNullable<GraphFieldConfig['stacking']>['mode'], group: 'A' };
  return {
    kind: 'panel',
    w: opts.width ?? 12,
    h: opts.height ?? 8,
    panel: {
      type: 'timeseries',
      title,
      description: opts.description,
      datasource: DATASOURCE,
      targets: targets(queries),
      // Grafana's field config is open (Record<string, unknown>); `custom` was typed as GraphFieldConfig above.
      fieldConfig: { defaults: { unit: opts.unit ?? 'short', min: opts.min, max: opts.max, custom: { ...custom } }, overrides: [] },
      options: { legend, tooltip },
    },
  };
}

export function stat(title: string, query: Query, opts: Common & { thresholds?: Array<{ value: number | null; color: string }> }): Item {
  return {
    kind: 'panel',
    w: opts.width ?? 4,
    h: opts.height ?? 4,
    panel: {
      type: 'stat',
      title,
      description: opts.description,
      datasource: DATASOURCE,
      targets: targets([query]),
      fieldConfig: {
        defaults: {
          unit: opts.unit ?? 'short',
          min: opts.min,
          max: opts.max,
          thresholds: { mode: 'absolute' as never, steps: opts.thresholds ?? [{ value: null, color: 'green' }] },
        },
        overrides: [],
      },
      options: {
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
        colorMode: 'value',
        graphMode: 'area',
        textMode: 'auto',
      },
    },
  };
}

/** A table of instant queries, one column per label and a `Value` column. */
export function table(title: string, queries: Query[], opts: Common): Item {
  return {
    kind: 'panel',
    w: opts.width ?? 12,
    h: opts.height ?? 8,
    panel: {
      type: 'table',
      title,
      description: opts.description,
      datasource: DATASOURCE,
      targets: targets(queries.map((q) => ({ ...q, instant: true }))),
      fieldConfig: { defaults: { unit: opts.unit ?? 'short' }, overrides: [] },
      options: { showHeader: true, sortBy: [{ displayName: 'Value', desc: true }] },
      transformations: [{ id: 'organize', options: { excludeByName: { Time: true } } }],
    },
  };
}

export function row(title: string): Item {
  return { kind: 'row', title };
}

export const datasourceVariable: VariableModel = {
  type: 'datasource',
  name: 'datasource',
  label: 'Data source',
  query: 'prometheus',
  refresh: VariableRefresh.onDashboardLoad,
  hide: 0 as VariableModel['hide'],
  options: [],
};

export function queryVariable(
  name: string,
  label: string,
  query: string,
  opts: { multi?: boolean; includeAll?: boolean } = {},
): VariableModel {
  return {
    type: 'query',
    name,
    label,
    datasource: DATASOURCE,
    query: { query, refId: `${name}-variable` },
    refresh: VariableRefresh.onTimeRangeChanged,
    multi: opts.multi ?? true,
    includeAll: opts.includeAll ?? true,
    allValue: '.*',
    options: [],
    sort: 1 as VariableModel['sort'],
  };
}

export function customVariable(name: string, label: string, values: string[]): VariableModel {
  return {
    type: 'custom',
    name,
    label,
    query: values.join(','),
    current: { text: values[0], value: values[0] },
    options: values.map((v, i) => ({ text: v, value: v, selected: i === 0 })),
    multi: false,
    includeAll: false,
  };
}

export function textboxVariable(name: string, label: string, value: string): VariableModel {
  return { type: 'textbox', name, label, query: value, current: { text: value, value }, options: [{ text: value, value, selected: true }] };
}

/** The namespaces Trawl runs in, from the `up` series of its ServiceMonitors' targets (job="trawl-<component>"). */
export const namespaceVariable = queryVariable('namespace', 'Namespace', 'label_values(up{job=~"trawl-.+"}, namespace)');

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  variables: VariableModel[];
  items: Item[];
}

/** A dashboard with its panels laid out and numbered. */
export function dashboard(spec: DashboardSpec): Dashboard {
  const panels: Array<Panel | RowPanel> = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  let id = 0;
  for (const item of spec.items) {
    if (item.kind === 'row') {
      if (x > 0) y += rowHeight;
      x = 0;
      rowHeight = 0;
      panels.push({ type: 'row', id: ++id, title: item.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
      y += 1;
      continue;
    }
    if (x + item.w > 24) {
      y += rowHeight;
      x = 0;
      rowHeight = 0;
    }
    panels.push({ ...item.panel, id: ++id, gridPos: { h: item.h, w: item.w, x, y } });
    x += item.w;
    rowHeight = Math.max(rowHeight, item.h);
  }
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: ['trawl'],
    editable: true,
    graphTooltip: 1 as Dashboard['graphTooltip'],
    schemaVersion: 41,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    links: [
      {
        title: 'Trawl dashboards',
        type: 'dashboards',
        tags: ['trawl'],
        asDropdown: true,
        icon: 'external link',
        includeVars: true,
        keepTime: true,
        targetBlank: false,
        tooltip: '',
        url: '',
      },
    ],
    annotations: { list: [] },
    templating: { list: spec.variables },
    panels,
  };
}
