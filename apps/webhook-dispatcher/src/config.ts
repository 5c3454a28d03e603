import { z } from 'zod';
import { baseConfigSchema, envInt } from '@trawl/config';

export const configSchema = baseConfigSchema.extend({
  PORT: envInt(8084, 0, 65535),
  DB_POOL_SIZE: envInt(5, 1, 200),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
});
export type WebhookDispatcherConfig = z.infer<typeof configSchema>;
