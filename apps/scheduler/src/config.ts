import { z } from 'zod';
import { baseConfigSchema, envInt } from '@trawl/config';

export const configSchema = baseConfigSchema
  .extend({
    PORT: envInt(8083, 0, 65535),
    DB_POOL_SIZE: envInt(5, 1, 200),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
    /** How long the schedule leader's lease lasts without renewal, ms: a crashed leader is replaced after at most this. */
    SCHEDULER_LEASE_TTL_MS: envInt(15_000, 1_000),
    /** How often each replica renews (leader) or tries to take (others) the lease, ms. */
    SCHEDULER_RENEW_INTERVAL_MS: envInt(5_000, 100),
    /** How often the leader looks for due schedules, ms: the usual lag between a due time and its firing. */
    SCHEDULE_POLL_INTERVAL_MS: envInt(1_000, 50),
    /**
     * How late a due time may still fire, ms (default 1 hour): after an outage the latest missed due
     * time fires once if it is this recent; the others are recorded as `skipped_missed`.
     */
    SCHEDULE_MISSED_GRACE_MS: envInt(3_600_000, 0),
    /** Due schedules the leader takes per pass. */
    SCHEDULE_BATCH: envInt(100, 1, 10_000),
    /** This replica's name in the lease row (default: host name, pid and a random suffix). */
    SCHEDULER_INSTANCE_ID: z.string().min(1).optional(),
  })
  .refine((config) => config.SCHEDULER_RENEW_INTERVAL_MS * 2 <= config.SCHEDULER_LEASE_TTL_MS, {
    path: ['SCHEDULER_RENEW_INTERVAL_MS'],
    message: 'must be at most half of SCHEDULER_LEASE_TTL_MS, so one failed renewal does not lose the lease',
  });
export type SchedulerConfig = z.infer<typeof configSchema>;
