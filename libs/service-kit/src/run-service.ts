import type { DynamicModule } from '@nestjs/common';
import type { z } from 'zod';
import { loadConfig } from '@trawl/config';
import { createLogger, Logger, startTracing } from '@trawl/observability';
import { applyHeapSettings, type HeapSettings } from './heap-settings';

/**
 * A service's main.ts in one call. This file is its own entry (`@trawl/service-kit/run-service`,
 * not the package index) because main.ts loads it before tracing starts: it must load nothing that
 * tracing instruments (pg, undici, Nest's HTTP adapter), and nothing that loads them.
 */

/** What booting reads from a service's config (every service's schema has these). */
export interface BootConfig extends HeapSettings {
  LOG_LEVEL: string;
  HTTP_HOST: string;
  /** Port of `/healthz`, `/readyz` and `/metrics`. */
  PORT: number;
  /** How long SIGTERM may take before the process exits anyway, in ms. */
  SHUTDOWN_TIMEOUT_MS: number;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
}

export interface ServiceDefinition<S extends z.ZodType<BootConfig>> {
  /** e.g. `crawl-coordinator`: the traces' service name, the logs' `service`. */
  name: string;
  /** Parsed once from the environment; a bad variable fails the boot naming it. */
  configSchema: S;
  /**
   * Builds the service's root module (connections first, so a bad URL fails the boot). Require the
   * module file inside this function, not at the top of main.ts: this runs after tracing started,
   * so what the module loads is instrumented.
   */
  module(config: z.infer<S>, logger: Logger): Promise<DynamicModule>;
}

/**
 * Boots a back-end service: parses its config, starts tracing, makes its logger, then builds the
 * module and serves it over HTTP until SIGTERM/SIGINT (`startHttpService`: shutdown hooks within
 * `SHUTDOWN_TIMEOUT_MS`). A failure to start is written to stderr and exits 1.
 */
export function runService<S extends z.ZodType<BootConfig>>(service: ServiceDefinition<S>): void {
  start(service).catch((error: unknown) => {
    process.stderr.write(`${service.name} failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

async function start<S extends z.ZodType<BootConfig>>(service: ServiceDefinition<S>): Promise<void> {
  const config: BootConfig & z.infer<S> = loadConfig(service.configSchema);
  applyHeapSettings(config);
  startTracing({ serviceName: service.name, otlpEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });
  const logger = createLogger(service.name, config.LOG_LEVEL);
  // Loaded after tracing starts, so Fastify and Nest's HTTP layer are instrumented.
  const { startHttpService } = require('@trawl/http') as typeof import('@trawl/http');
  await startHttpService({
    module: await service.module(config, logger),
    logger,
    host: config.HTTP_HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}
