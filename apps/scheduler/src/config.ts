import { z } from 'zod';
import { baseConfigSchema, envBool, envInt, fetchPolicyConfigShape } from '@trawl/config';
import { MAX_PAGES_PER_TASK_MESSAGE } from '@trawl/contracts';
import { secretsKeyEnv } from '@trawl/webhooks';

export const schedulerConfigSchema = baseConfigSchema
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
    /** How often the batch dispatcher looks for queued tasks when it found none, ms (default 200). */
    BATCH_DISPATCH_POLL_MS: envInt(200, 10, 60_000),
    /** Most batch tasks one dispatch round claims, across tenants (default 256). */
    BATCH_DISPATCH_BATCH: envInt(256, 1, 10_000),
    /** Most batch tasks in flight at once across every tenant (default 1024): the work queue's back-pressure. */
    BATCH_DISPATCH_WINDOW: envInt(1024, 1, 100_000),
    /** How long a dispatched task may go unanswered before it is dispatched again, ms (default 10 min). */
    BATCH_TASK_LEASE_MS: envInt(600_000, 1_000, 24 * 3_600_000),
    /** Time a worker may spend on one batch task, ms (default 170 s, the Fetch API's deadline). */
    BATCH_TASK_TIMEOUT_MS: envInt(170_000, 1_000, 600_000),
    /** Largest answer body of a batch task, bytes (default 10 MiB, the Fetch API's). */
    BATCH_MAX_BODY_BYTES: envInt(10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    /** How often the batch reconciler looks for expired leases and finishable runs, ms (default 5 s). */
    BATCH_RECONCILE_INTERVAL_MS: envInt(5_000, 50, 600_000),
    /** Most result messages applied in one transaction (default 256). */
    BATCH_RESULT_BATCH: envInt(256, 1, 10_000),
    /**
     * How long the first result of a batch waits for company before the batch is applied, ms
     * (default 0: what arrived while the last intake ran is applied at once). Every result holds its
     * tenant's slot until applied, so this is added to every task's cycle. Since the intake claims
     * the freed slots' next tasks itself, 0 beat 2 (bench/README.md, Batch); before, 2 beat 10 and 0.
     */
    BATCH_RESULT_WAIT_MS: envInt(0, 0, 1_000),
    /**
     * How long a dispatch round waits after results freed slots, for 16 freed slots or this long,
     * ms (default 2): one round for many freed slots costs about as much as one for a few.
     */
    BATCH_DISPATCH_LINGER_MS: envInt(2, 0, 1_000),
    /**
     * Whether the transaction that takes results in also claims the next tasks for the slots they
     * freed, where a dispatch round would share them no differently (default true; false leaves
     * every claim to the rounds). bench/README.md (Batch) measures both.
     */
    BATCH_REFILL_ON_INTAKE: envBool(true),
    /**
     * Most of a run's claimed tasks sent in one NATS message (default 8; 1 sends each alone, as
     * schedulers before it did). Fetch workers older than this drop messages of several: roll them
     * out first (docs/decisions/batch-execution.md, "Tasks travel together").
     */
    BATCH_TASK_GROUP_SIZE: envInt(8, 1, MAX_PAGES_PER_TASK_MESSAGE),
    /** How often the schedule leader sweeps expired CSV inputs and export records, ms (default 10 min). */
    RETENTION_SWEEP_INTERVAL_MS: envInt(600_000, 1_000, 24 * 3_600_000),
    /**
     * How long an expired CSV input slot or export record is kept, ms (default 7 days), so asking
     * for it answers `file_input_expired` / `export_expired` rather than not found. Staged rows go at expiry.
     */
    RETENTION_EXPIRED_KEPT_MS: envInt(7 * 24 * 3_600_000, 0, 365 * 24 * 3_600_000),
    /** Rows one retention statement deletes at most (default 5,000). */
    RETENTION_BATCH: envInt(5_000, 1, 100_000),
    /** Extract: domain preparations one replica runs at once (default 2). */
    PREPARE_CONCURRENCY: envInt(2, 1, 64),
    /** Extract: most pages a preparation fetches (default 40). */
    PREPARE_MAX_PAGES: envInt(40, 1, 500),
    /** Extract: least time between two fetches of one preparation, ms (default 1,000); a longer robots.txt `Crawl-delay` wins, up to 10 s. */
    PREPARE_FETCH_INTERVAL_MS: envInt(1_000, 0, 60_000),
    /** Extract: longest a preparation fetches before it learns from what it has, ms (default 10 min). */
    PREPARE_MAX_FETCHING_MS: envInt(10 * 60_000, 1_000, 3_600_000),
    /** Extract: time for one page through the fetch workers, ms (default 90 s). */
    PREPARE_PAGE_TIMEOUT_MS: envInt(90_000, 1_000, 600_000),
    /** Extract: a preparation's lease, renewed with each page; past it the sweep hands it to another replica, ms (default 2 min). */
    PREPARE_LEASE_MS: envInt(120_000, 1_000, 3_600_000),
    /** Extract: deliveries of one attempt before it fails (a preparer that keeps dying on it), default 5. */
    PREPARE_MAX_DELIVERIES: envInt(5, 1, 100),
    /** Extract: how often the sweep looks for preparations whose lease ran out, ms (default 15 s). */
    PREPARE_SWEEP_INTERVAL_MS: envInt(15_000, 100, 600_000),
    ...fetchPolicyConfigShape,
    /**
     * Base64 of 32 bytes, as the gateway's: opens tenants' sealed CAPTCHA solver keys for batch
     * tasks. Optional; without it a tenant's sealed key is not sent (its CAPTCHAs are not solved).
     */
    SECRETS_KEY: secretsKeyEnv,
  })
  .refine((config) => config.SCHEDULER_RENEW_INTERVAL_MS * 2 <= config.SCHEDULER_LEASE_TTL_MS, {
    path: ['SCHEDULER_RENEW_INTERVAL_MS'],
    message: 'must be at most half of SCHEDULER_LEASE_TTL_MS, so one failed renewal does not lose the lease',
  })
  .refine((config) => config.BATCH_TASK_TIMEOUT_MS < config.BATCH_TASK_LEASE_MS, {
    path: ['BATCH_TASK_LEASE_MS'],
    message: 'must be longer than BATCH_TASK_TIMEOUT_MS, or every slow task would be dispatched twice',
  });
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;
