import { ConfigError } from '@trawl/config';
import { startTracing } from '@trawl/observability';
import { GatewayConfig, loadGatewayConfig } from './config';

/**
 * The first import of main.ts: parses the config (exiting with a message naming every bad
 * variable) and starts tracing before anything loads Nest, pg or undici, so they are instrumented.
 */
function boot(): GatewayConfig {
  try {
    const config = loadGatewayConfig();
    startTracing({ serviceName: 'gateway', otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`gateway: ${error.message}\n`);
    process.exit(1);
  }
}

export const config = boot();
