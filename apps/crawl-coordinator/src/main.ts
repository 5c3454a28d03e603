import { loadConfig } from '@trawl/config';
import { createLogger, startTracing } from '@trawl/observability';
import { coordinatorConfigSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfig(coordinatorConfigSchema);
  startTracing({ serviceName: 'crawl-coordinator', otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
  const logger = createLogger('crawl-coordinator', config.LOG_LEVEL);
  // Nest and the database driver load after tracing starts, so they are instrumented.
  const { startHttpService } = require('@trawl/http') as typeof import('@trawl/http');
  const { CrawlCoordinatorModule } = require('./crawl-coordinator.module') as typeof import('./crawl-coordinator.module');
  await startHttpService({
    module: await CrawlCoordinatorModule.forRoot(config, logger),
    logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`crawl-coordinator failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
