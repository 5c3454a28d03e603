import { loadConfig } from '@trawl/config';
import { createLogger, startTracing } from '@trawl/observability';
import { configSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  startTracing({ serviceName: 'scheduler', otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
  const logger = createLogger('scheduler', config.LOG_LEVEL);
  // Loaded after tracing starts, so the database driver is instrumented.
  const { startHttpService } = require('@trawl/http') as typeof import('@trawl/http');
  const { SchedulerModule } = require('./scheduler.module') as typeof import('./scheduler.module');
  await startHttpService({
    module: await SchedulerModule.forRoot(config, logger),
    logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`scheduler failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
