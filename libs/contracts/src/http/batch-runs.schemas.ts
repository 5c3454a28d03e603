import { z } from 'zod';
import { FETCH_TIERS } from '../fetch.messages';
import { RUN_KINDS, RUN_STATUSES } from '../states';

/**
 * Runs of a batch job over HTTP (spec-batch-api §2 Run, §3, §4): the run object, its list, the
 * retry-failed body and the cost answers.
 */

/** Spec §2 `stats`: `completed` is always `successful + failed`. */
export const runStats = z
  .object({
    total: z.int().min(0),
    completed: z.int().min(0),
    successful: z.int().min(0),
    failed: z.int().min(0),
    spend: z.object({
      credits: z.number().min(0),
      cost: z.number().min(0).meta({ description: 'US dollars, at the price of each billing (a later price change rewrites nothing).' }),
    }),
  })
  .meta({ id: 'RunStats', description: "Counts of a run's tasks; `completed` is always `successful + failed`." });

/** One execution of a job (spec §2 Run). Absent fields are left out, never `null`. */
export const jobRun = z
  .object({
    run_id: z.uuid(),
    run_sequence: z.int().min(1).meta({ description: 'Ordinal of the run in its job, from 1.' }),
    kind: z.enum(RUN_KINDS).meta({ description: 'What started the run.' }),
    status: z.enum(RUN_STATUSES),
    stats: runStats,
    failure_reason: z.string().optional().meta({ description: 'A failed run only.' }),
    failure_detail: z.string().optional().meta({ description: 'A failed run only.' }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().optional(),
    finished_at: z.iso.datetime().optional(),
  })
  .meta({ id: 'JobRun', description: 'One execution of a job.' });
export type JobRunAnswer = z.infer<typeof jobRun>;

/**
 * A run just started by a rerun or a retry: the run, and what the public Node SDK reads of it (the
 * job, the run again as `latest_run`, and how many tasks run again or were carried over).
 */
export const startedRun = jobRun
  .extend({
    job_id: z.uuid(),
    latest_run: jobRun,
    retried_tasks: z.int().min(0).meta({ description: 'Tasks queued to run again.' }),
    inherited_tasks: z.int().min(0).meta({ description: 'Successful results carried over from the run retried (not billed again).' }),
  })
  .meta({ id: 'StartedRun' });
export type StartedRunAnswer = z.infer<typeof startedRun>;

/** Query of `POST /v1/jobs/{jobId}/rerun`: which tasks run again (the public Node SDK's form of retry-failed). */
export const RERUN_STATUSES = ['failed', 'failed,pending'] as const;
export const rerunQuery = z.object({
  status: z.enum(RERUN_STATUSES).optional().meta({
    description: '`failed`: as `POST …/retry-failed`; `failed,pending`: with `include_not_started`. Without it, every task runs again.',
  }),
});

/** `next_cursor` of every list: `null` on the last page. */
export const nextCursor = z.string().nullable().meta({ description: 'Give it as `cursor` for the next page; `null` on the last page.' });

/** `GET /v1/jobs/{jobId}/runs`: newest first. */
export const runList = z.object({ runs: z.array(jobRun), next_cursor: nextCursor }).meta({ id: 'JobRunList' });
export type RunListAnswer = z.infer<typeof runList>;

/** Body of `POST /v1/jobs/{jobId}/retry-failed` (optional: an empty body takes the defaults). */
export const retryFailedBody = z
  .strictObject({
    include_not_started: z.boolean().default(false).meta({ description: 'Also re-run the tasks the latest run never finished.' }),
  })
  .meta({ id: 'RetryFailedRequest' });

const creditRange = z.object({ min: z.number().min(0), max: z.number().min(0) });

/** Tiers a task is priced at: a Fetch tier, or `auto` for adaptive tasks (basic to premium_js_render). */
export const ESTIMATE_TIERS = [...FETCH_TIERS, 'auto'] as const;

/** `GET /v1/jobs/{jobId}/cost-estimate`: a range, since `mode=auto` picks tiers as it goes. */
export const jobCostEstimate = z
  .object({
    job_id: z.uuid(),
    tasks: z.int().min(0),
    credits: creditRange,
    /** US dollars at today's credit price. */
    cost: creditRange,
    tasks_by_tier: z.partialRecord(z.enum(ESTIMATE_TIERS), z.int().min(0)),
  })
  .meta({ id: 'JobCostEstimate', description: "Credits (and US dollars) a run of the job's tasks would take." });
export type JobCostEstimateAnswer = z.infer<typeof jobCostEstimate>;

/** `GET /v1/jobs/{jobId}/runs/{runId}/cost`: what the ledger holds for the run. */
export const runCost = z
  .object({
    job_id: z.uuid(),
    run_id: z.uuid(),
    run_status: z.enum(RUN_STATUSES),
    credits: z.number().min(0),
    cost: z.number().min(0),
    by_tier: z.array(
      z.object({
        tier: z.string().meta({ description: 'The tier the tasks were billed at (`basic`, `js_render`, `premium`, `premium_js_render`).' }),
        tasks: z.int().min(0),
        credits: z.number().min(0),
        cost: z.number().min(0),
      }),
    ),
  })
  .meta({ id: 'JobRunCost', description: 'Credits the ledger holds for one run, by tier, and their cost in US dollars.' });
export type RunCostAnswer = z.infer<typeof runCost>;
