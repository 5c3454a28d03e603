import type { Dashboard } from '@grafana/schema';
import { batch } from './batch';
import { crawls } from './crawls';
import { fetchDashboard } from './fetch';
import { jetstream } from './jetstream';
import { overview } from './overview';
import { tenants } from './tenants';

/**
 * Trawl's dashboards by file name: `deploy/helm/trawl/files/dashboards/<name>.json` holds each, as
 * `JSON.stringify(dashboard, null, 2)` plus a newline. Regenerate after a change with
 * `TRAWL_WRITE_DASHBOARDS=1 npx jest --selectProjects integration test/deploy/monitoring-dashboards`.
 */
export const dashboards: Readonly<Record<string, Dashboard>> = {
  'trawl-overview': overview,
  'trawl-fetch': fetchDashboard,
  'trawl-crawls': crawls,
  'trawl-batch': batch,
  'trawl-tenants': tenants,
  'trawl-jetstream': jetstream,
};

export function dashboardJson(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}
