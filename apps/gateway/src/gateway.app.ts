import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { ChargeBuffer } from '@trawl/billing';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { MessagingConnection } from '@trawl/messaging';
import { createLogger, createMetricsRegistry, Logger, PinoNestLogger } from '@trawl/observability';
import { createDataSource, Database } from '@trawl/persistence';
import { closeConnectionsWhenClosing } from '@trawl/http';
import { installApiKeyAuthentication } from './auth/api-key.hook';
import { installAccountGuard } from './auth/account-guard.hook';
import { AdminAuthenticator } from './auth/admin-authenticator';
import { installAdminAuthentication } from './auth/admin-token.guard';
import { raiseTaskListBodyLimit } from './batch/batch-body-limit';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import type { GatewayConfig } from './config';
import { isFetchRoute, mirrorFetchRoute } from './fetch/fetch.routes';
import { assignRequestId } from './fetch/request-id';
import { GatewayModule, GatewayResources } from './gateway.module';
import { installCsvUploadBody } from './job-inputs/csv-upload-body';
import { installClientAddressGuard } from './limits/client-address.guard';
import { ClientAddressHealth } from './limits/client-address-health';
import { installHttpMetrics } from './metrics/http-metrics';
import { installOperatorSurface } from './operator-surface/operator-surface';
import { ProblemFilter } from './problems/problem.filter';
import { RequestError, RequestErrorCode } from './problems/request.errors';
import { AccountsService } from './tenants/accounts.service';

const SERVICE = 'gateway';

/** Opens the database pool and the NATS connection; closes what it opened if a later step fails. */
export async function openGatewayResources(config: GatewayConfig, logger?: Logger): Promise<GatewayResources> {
  const log = logger ?? createLogger(SERVICE, config.LOG_LEVEL);
  const egress = new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) });
  const dataSource = createDataSource({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: `trawl-${SERVICE}`,
  });
  await dataSource.initialize();
  try {
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: `trawl-${SERVICE}` });
    const db = new Database(dataSource);
    const charges = new ChargeBuffer(db, {
      flushMs: config.FETCH_LEDGER_FLUSH_MS,
      onFlushError: (error, pending) => log.error({ err: error, pending }, 'fetch charges not written yet; retrying'),
    });
    return { config, logger: log, db, messaging, egress, registry: createMetricsRegistry(SERVICE), charges };
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
}

/**
 * What the gateway adds to Fastify around Nest: problem+json for every error, a JSON body parser
 * that accepts an empty body (and raw bodies for the Fetch endpoint), request metrics, the client
 * address guard of the Fetch endpoint, the operator surface (admin API and `/metrics`) on its own
 * port, API key authentication of every `/v1` route, admin token authentication of every `/admin`
 * route, and the account guard of routes that start paid work.
 * Call before `listen`/`init`.
 */
export function configureGatewayApp(app: NestFastifyApplication, resources: GatewayResources): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  app.useGlobalFilters(new ProblemFilter(resources.logger));
  mirrorFetchRoute(fastify);
  raiseTaskListBodyLimit(fastify, resources.config.BATCH_BODY_LIMIT_BYTES);
  const bodyLimit = resources.config.HTTP_BODY_LIMIT_BYTES;
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as (
    request: unknown,
    body: string,
    done: (error: Error | null, body?: unknown) => void,
  ) => void;
  // The Fetch endpoint forwards POST/PUT bodies to the target as they came, whatever their type
  // (fetch-details "Endpoint"), as bytes: text/plain too, which Fastify's own parser would decode
  // as UTF-8 whatever its charset (a windows-1252 form reached the target altered).
  const fetchBody = (request: { routeOptions: { url?: string } }, body: Buffer, done: (error: Error | null, body?: unknown) => void) =>
    isFetchRoute(request.routeOptions.url) ? (done(null, body), true) : false;
  // All bodies are JSON (spec-crawl-api §4): another type is refused rather than half-understood.
  const notJson = () =>
    new RequestError(RequestErrorCode.UnsupportedMediaType, 'Send the body as JSON with `Content-Type: application/json`.');
  // Bodiless POSTs (stop, admin defaults) often still send `Content-Type: application/json`.
  app.useBodyParser('application/json', { bodyLimit }, (request, body, done) => {
    if (fetchBody(request, body, done)) return;
    if (body.length === 0) return done(null, undefined);
    parseJson(request, body.toString('utf8'), done);
  });
  app.useBodyParser('application/x-www-form-urlencoded', { bodyLimit }, (request, body, done) => {
    if (fetchBody(request, body, done)) return;
    done(notJson(), undefined);
  });
  fastify.removeContentTypeParser('text/plain');
  app.useBodyParser('text/plain', { bodyLimit }, (request, body, done) => {
    if (fetchBody(request, body, done)) return;
    // Bodiless POSTs (a browser's fetch with body '') carry text/plain.
    if (body.length === 0) return done(null, undefined);
    done(notJson(), undefined);
  });
  // CSV uploads stream to their route, bounded by their own limit rather than the JSON body limit.
  installCsvUploadBody(fastify, { matches: isFetchRoute, bodyLimit });
  app.useBodyParser('*', { bodyLimit }, (request, body, done) => {
    if (fetchBody(request, body, done)) return;
    done(notJson(), undefined);
  });
  // First of the hooks: even a refusal before authentication carries its X-Request-Id.
  fastify.addHook('onRequest', async (request, reply) => {
    if (isFetchRoute(request.routeOptions.url)) assignRequestId(reply);
  });
  // Before anything else looks at an operator path: on the public port it does not exist.
  installOperatorSurface(fastify, { host: resources.config.ADMIN_HOST ?? resources.config.HTTP_HOST, port: resources.config.ADMIN_PORT });
  installClientAddressGuard(fastify, { health: app.get(ClientAddressHealth), isGuardedRoute: isFetchRoute });
  installHttpMetrics(fastify, resources.registry);
  installApiKeyAuthentication(fastify, app.get(ApiKeyAuthenticator));
  installAdminAuthentication(fastify, app.get(AdminAuthenticator));
  installAccountGuard(fastify, app.get(AccountsService));
}

/**
 * The gateway as a Nest app, configured but not listening: tests call `app.listen(0)` and
 * `app.close()` (which also closes the database pool and the NATS connection).
 */
export async function createGatewayApp(config: GatewayConfig, options: { logger?: Logger } = {}): Promise<NestFastifyApplication> {
  const resources = await openGatewayResources(config, options.logger);
  try {
    const app = await NestFactory.create<NestFastifyApplication>(
      GatewayModule.register(resources),
      new FastifyAdapter({ bodyLimit: config.HTTP_BODY_LIMIT_BYTES, trustProxy: trustedProxies(config.TRUSTED_PROXIES) }),
      { logger: new PinoNestLogger(resources.logger), bufferLogs: false },
    );
    // startHttpService does this for the service; this app is the tests' gateway.
    closeConnectionsWhenClosing(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
    configureGatewayApp(app, resources);
    return app;
  } catch (error) {
    await resources.messaging.close().catch(() => undefined);
    await resources.db.dataSource.destroy().catch(() => undefined);
    throw error;
  }
}

/** Fastify's `trustProxy`: the configured addresses, or nobody. */
function trustedProxies(spec: string): string | false {
  const entries = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  return entries.length > 0 ? entries.join(',') : false;
}
