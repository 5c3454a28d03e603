// Must stay the first import: it starts tracing before the imports below load pg and Nest.
import { config } from './boot';
import { startHttpService } from '@trawl/http';
import { configureGatewayApp, openGatewayResources } from './gateway.app';
import { GatewayModule } from './gateway.module';
import { withProxyMode } from './proxy-mode/proxy-mode.module';

async function main(): Promise<void> {
  const resources = await openGatewayResources(config);
  await startHttpService({
    module: withProxyMode(GatewayModule.register(resources)),
    logger: resources.logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    bodyLimit: config.HTTP_BODY_LIMIT_BYTES,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    configure: (app) => configureGatewayApp(app, resources),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
