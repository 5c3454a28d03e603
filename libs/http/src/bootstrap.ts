import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, PinoNestLogger } from '@trawl/observability';
import type { FastifyInstance } from 'fastify';
import { closeConnectionsWhenClosing } from './drain-on-close';

export interface HttpServiceOptions {
  module: Type<unknown> | import('@nestjs/common').DynamicModule;
  logger: Logger;
  host: string;
  port: number;
  /** Largest request body accepted, in bytes (default 1 MiB). */
  bodyLimit?: number;
  shutdownTimeoutMs: number;
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
}

/**
 * Starts a Nest service on Fastify with pino logging, and shuts it down on SIGTERM/SIGINT within a
 * deadline (module shutdown hooks let each module hand back what it holds). Every Trawl service,
 * API or not, listens on HTTP for `/healthz`, `/readyz` and `/metrics`.
 */
export async function startHttpService(options: HttpServiceOptions): Promise<INestApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: options.bodyLimit ?? 1024 * 1024 });
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, {
    logger: new PinoNestLogger(options.logger),
    bufferLogs: false,
  });
  closeConnectionsWhenClosing(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
  await options.configure?.(app);
  await app.listen(options.port, options.host);
  const address = app.getHttpServer().address();
  options.logger.info({ address }, 'listening');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    options.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      options.logger.error({ signal }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs);
    timer.unref();
    app
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        options.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  // app.close() runs every module's shutdown hooks (nak in-flight work, close pools) before exit.
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return app;
}
