import { loadConfig } from '@trawl/config';
import { createLogger, startTracing } from '@trawl/observability';
import { configSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  startTracing({ serviceName: 'webhook-dispatcher', otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
  const logger = createLogger('webhook-dispatcher', config.LOG_LEVEL);
  // Loaded after tracing starts, so the database driver is instrumented.
  const { startHttpService } = require('@trawl/http') as typeof import('@trawl/http');
  const { WebhookDispatcherModule } = require('./webhook-dispatcher.module') as typeof import('./webhook-dispatcher.module');
  await startHttpService({
    module: await WebhookDispatcherModule.forRoot(config, logger),
    logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`webhook-dispatcher failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
