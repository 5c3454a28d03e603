import type { ApiRoute } from './api-route';
import { accountRoutes } from './account';
import { batchRoutes } from './batch.routes';
import { crawlsRoutes } from './crawls';
import { extractRoutes } from './extract';
import { fetchRoutes } from './fetch';
import { mapRoutes } from './map';
import { mcpRoutes } from './mcp';
import { openApiRoutes } from './openapi.routes';

export * from './api-route';
export * from './problem.schema';
export * from './body-fields';
export * from './openapi';
export * from './openapi.routes';
export * from './crawls';
export * from './extract';
export * from './fetch';
export * from './map';
export * from './mcp';
export * from './account';
export * from './admin';
export * from './batch.routes';
export * from './batch-jobs.schemas';
export * from './batch-runs.schemas';
export * from './job-inputs.schemas';
export * from './job-exports.schemas';
export * from './webhooks.schemas';

/**
 * Every route of the public API, as `/v1/openapi.json` documents it. A feature's routes join here;
 * the gateway's unit test fails when a public controller route is missing (or one here has no route).
 */
export const PUBLIC_API_ROUTES: readonly ApiRoute[] = [
  ...fetchRoutes,
  ...extractRoutes,
  ...mapRoutes,
  ...crawlsRoutes,
  ...batchRoutes,
  ...accountRoutes,
  ...mcpRoutes,
  ...openApiRoutes,
];
