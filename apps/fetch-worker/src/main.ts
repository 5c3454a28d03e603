import { loadConfig } from '@trawl/config';
import { createLogger, startTracing } from '@trawl/observability';
import { fetchWorkerConfigSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfig(fetchWorkerConfigSchema);
  startTracing({ serviceName: 'fetch-worker', otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
  const logger = createLogger('fetch-worker', config.LOG_LEVEL);
  // Nest and undici load after tracing starts, so they are instrumented.
  // (require, not import(): TypeScript resolves import() in ESM mode, which cannot see './x.module'.)
  const { startHttpService } = require('@trawl/http') as typeof import('@trawl/http');
  const { FetchWorkerModule } = require('./fetch-worker.module') as typeof import('./fetch-worker.module');
  await startHttpService({
    module: await FetchWorkerModule.forRoot(config, logger),
    logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`fetch-worker failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
