import { z } from 'zod';
import { CACHE_STATUSES, CHANGE_STATUSES, captchaSolverV1, FETCH_TIERS, FETCH_WORKER_ERROR_CODES, fetchOptionsV1 } from './fetch.messages';
import type { MessagingTopology } from './messaging-topology';
import type { ConsumerDefinition, StreamDefinition } from './provisioning';
import { tasksTogether } from './task-groups';

/**
 * Methods a batch task may send its target. GET and POST per spec-batch-api §2; PUT as the issue
 * that post-dates the spec allows (docs/decisions/batch-api.md, "PUT tasks"). POST and PUT carry a body.
 */
export const BATCH_TASK_METHODS = ['GET', 'POST', 'PUT'] as const;
export type BatchTaskMethod = (typeof BATCH_TASK_METHODS)[number];

/**
 * One task of a batch run for a fetch worker (spec-batch-api §1): the inputs of a `FetchRequestV1`,
 * built by the scheduler from the job's and the task's `service_params` with the Fetch API's own
 * rules (`@trawl/fetch-params`), plus the tenant's inputs read when it dispatched. `run_id` + `seq` +
 * `attempt` identify one claim; the scheduler applies a result only for the current attempt.
 */
export const batchTaskV1 = z.object({
  v: z.literal(1),
  run_id: z.string().uuid(),
  seq: z.number().int().positive(),
  attempt: z.number().int().positive(),
  tenant_id: z.string().uuid(),
  url: z.string().url(),
  method: z.enum(BATCH_TASK_METHODS),
  /** Headers for the target (`custom_headers`, a POST or PUT body's content type); lowercase names. */
  headers: z.record(z.string(), z.string()),
  body_base64: z.string().optional(),
  options: fetchOptionsV1,
  /** Time the worker may spend on the task, in ms (the Fetch API's deadline). */
  timeout_ms: z.number().int().positive(),
  /**
   * Epoch ms when the claim's lease runs out: the reconciler then dispatches the task again, so a
   * worker that takes the task later skips it rather than fetch it twice.
   */
  lease_until: z.number().int().positive(),
  /** Largest answer body, in bytes (`RESP005` beyond it). */
  max_body_bytes: z.number().int().positive(),
  captcha_solver: captchaSolverV1.optional(),
  /** W3C traceparent of the run, so a task's spans join the request that created it. */
  trace_parent: z.string().optional(),
  /** With `mode: auto`, the tiers the tenant's plan allows (as `FetchRequestV1.auto_tiers`). */
  auto_tiers: z.array(z.enum(FETCH_TIERS)).min(1).optional(),
});
export type BatchTaskV1 = z.infer<typeof batchTaskV1>;

/**
 * Several tasks of one run in one message (`taskMessages`), on the same subject as a single task:
 * each is run as if it had come alone, and the message is acknowledged once every task's result is
 * stored or the task was handed back alone (docs/decisions/batch-execution.md, "Tasks travel together").
 */
export const batchTasksV1 = tasksTogether(batchTaskV1);
export type BatchTasksV1 = z.infer<typeof batchTasksV1>;

/** What the batch work stream carries: one task, or several of a run together. */
export const batchWorkMessageV1 = z.union([batchTaskV1, batchTasksV1]);
export type BatchWorkMessageV1 = z.infer<typeof batchWorkMessageV1>;

/** Core NATS notice that a batch run ended while tasks of it may still be queued (`batchRunStopped` subject). */
export const batchRunStoppedV1 = z.object({ run_id: z.string().uuid() });
export type BatchRunStoppedV1 = z.infer<typeof batchRunStoppedV1>;

/**
 * Where a body too large for the result message waits: `chunks` messages on
 * `<batchBodyStem(topology, run, seq, attempt)>.<i>` (i = 0 … chunks − 1) of the batch bodies
 * stream, `bytes` in all (`SpilledBodies` of @trawl/messaging writes and reads them).
 */
export const batchBodyRefV1 = z.object({
  chunks: z.number().int().positive(),
  bytes: z.number().int().positive(),
});
export type BatchBodyRefV1 = z.infer<typeof batchBodyRefV1>;

/** The answer to one batch task: what the Fetch API would have answered, plus how to bill it. */
export const batchTaskResultV1 = z.object({
  v: z.literal(1),
  run_id: z.string().uuid(),
  seq: z.number().int().positive(),
  attempt: z.number().int().positive(),
  /** The Fetch API's HTTP status for this answer (200, a passed-through target status, or the error's). */
  status_code: z.number().int().min(100).max(599),
  content_type: z.string(),
  /** The body's format (one of `OUTPUT_FORMATS`: `html`, `json`, a response type, a screenshot format) when it succeeded. */
  output_format: z.string().optional(),
  /** The body, inline… */
  body_base64: z.string().optional(),
  /** …or in chunks of the bodies stream (too large for one message). */
  body_ref: batchBodyRefV1.optional(),
  /** The tier billed, as the Fetch API bills the answer (a 404 too); null when the task is free. */
  billed_tier: z.enum(FETCH_TIERS).nullable(),
  credits: z.number().int().min(0),
  error: z.object({ code: z.enum(FETCH_WORKER_ERROR_CODES), detail: z.string() }).optional(),
  target_status: z.number().int().optional(),
  /** With `max_age` only: answered from a kept copy or fetched now (as the Fetch API's `X-Trawl-Cache`). */
  cache: z.enum(CACHE_STATUSES).optional(),
  /** With `change_tracking` only: the page against the tenant's last version of its URL (as `X-Trawl-Change-Status`). */
  change_status: z.enum(CHANGE_STATUSES).optional(),
  /**
   * Set when the worker did not run the task because its run had ended (a `batchRunStopped`
   * notice): nothing was fetched or billed, and the scheduler puts the claim back instead of
   * recording a result (the other fields are then 0 / empty).
   */
  skipped: z.enum(['run_ended']).optional(),
});
export type BatchTaskResultV1 = z.infer<typeof batchTaskResultV1>;

/** Results as workers publish them: several per message, like crawl page results. */
export const batchTaskResultBatchV1 = z.object({
  v: z.literal(1),
  results: z.array(batchTaskResultV1).min(1),
});
export type BatchTaskResultBatchV1 = z.infer<typeof batchTaskResultBatchV1>;

/**
 * Stem of the chunk subjects of one task attempt's spilled body: chunk `i` is on `<stem>.<i>`, as
 * schedulers of every version read it (the form predates `SpilledBodies`; keep it).
 */
export function batchBodyStem(topology: MessagingTopology, runId: string, seq: number, attempt: number): string {
  return `${topology.subjects.batchBodyPrefix}.${runId}.${seq}.${attempt}`;
}

/**
 * `Nats-Msg-Id` of a dispatched task: JetStream drops a second publish of the same claim. The
 * lease's end is part of it because an attempt number alone can come back: claims commit without
 * waiting for the disk, so a Postgres crash can lose one that was already published, and the task's
 * next claim gets the same attempt number; with the same id its task would be dropped as a repeat
 * and wait out the whole lease. Both tasks then answer for the same attempt; one result is applied.
 */
export function batchTaskMsgId(task: Pick<BatchTaskV1, 'run_id' | 'seq' | 'attempt' | 'lease_until'>): string {
  return `${task.run_id}:${task.seq}:${task.attempt}:${task.lease_until}`;
}

export interface BatchMessagingSettings {
  /** Un-acked batch tasks across all fetch workers (default 1024). */
  workMaxAckPending?: number;
  /** Un-acked result messages across all schedulers (default 4096). */
  resultsMaxAckPending?: number;
}

/**
 * Streams and consumers of batch runs: a work queue of tasks for fetch workers, a work queue of
 * result batches for schedulers, and the bodies too large for a result message (limits retention,
 * purged per task once its result is committed; a day's max age cleans up what nobody purged).
 * Postgres leases, not JetStream, finally guarantee that a task runs: these limits only bound how
 * long redelivery takes.
 */
export function batchMessagingDefinitions(
  topology: MessagingTopology,
  settings: BatchMessagingSettings = {},
): { streams: StreamDefinition[]; consumers: ConsumerDefinition[] } {
  return {
    streams: [
      {
        name: topology.streams.batchWork,
        subjects: [topology.subjects.batchTask],
        retention: 'workqueue',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
      {
        name: topology.streams.batchResults,
        subjects: [topology.subjects.batchResults],
        retention: 'workqueue',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
      {
        // Name and subjects as first deployed: old schedulers read it by name in a rolling upgrade
        // (docs/decisions/platform.md, "Spilled bodies").
        name: topology.streams.batchBodies,
        subjects: [`${topology.subjects.batchBodyPrefix}.>`],
        retention: 'limits',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
    ],
    consumers: [
      {
        stream: topology.streams.batchWork,
        durable: topology.consumers.batchWorkers,
        // Workers say `working()` during long fetches, so this only fires for a worker that died.
        ackWaitMs: 30_000,
        maxDeliver: 20,
        maxAckPending: settings.workMaxAckPending ?? 1024,
      },
      {
        stream: topology.streams.batchResults,
        durable: topology.consumers.batchSchedulers,
        ackWaitMs: 60_000,
        maxDeliver: -1,
        maxAckPending: settings.resultsMaxAckPending ?? 4096,
      },
    ],
  };
}
