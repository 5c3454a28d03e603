import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino, { Logger } from 'pino';
import { loadConfig } from '@trawl/config';
import { fetchWorkerConfigSchema } from '../../src/config';
import { FetchWorkerModule } from '../../src/fetch-worker.module';

/**
 * A whole fetch worker in the test's process, started (consuming) on the local NATS with `env`
 * (its variables, as a deployment sets them; `NATS_URL` and a silent log by default).
 */
export async function startWorkerApp(
  env: Record<string, string>,
  logger: Logger = pino({ level: 'silent' }),
): Promise<INestApplicationContext> {
  const config = loadConfig(fetchWorkerConfigSchema, {
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await NestFactory.createApplicationContext(await FetchWorkerModule.forRoot(config, logger), { logger: false });
  await app.init();
  return app;
}
