import { creditsOfTier } from '@trawl/billing';
import type { BatchTaskResultV1, BatchTaskV1, FetchRequestV1 } from '@trawl/contracts';
import { outputFormatOf } from '@trawl/fetch-params';
import type { FetchAnswer } from '../fetch-requests/fetch-request.service';

/** The Fetch API request a batch task is (same options, engines, tiers, errors). */
export function fetchRequestOf(task: BatchTaskV1, now: number): FetchRequestV1 {
  return {
    v: 1,
    request_id: `batch:${task.run_id}:${task.seq}:${task.attempt}`,
    tenant_id: task.tenant_id,
    url: task.url,
    method: task.method,
    headers: task.headers,
    ...(task.body_base64 !== undefined && { body_base64: task.body_base64 }),
    options: task.options,
    deadline_at: now + task.timeout_ms,
    max_body_bytes: task.max_body_bytes,
    ...(task.captcha_solver && { captcha_solver: task.captcha_solver }),
    ...(task.auto_tiers && { auto_tiers: task.auto_tiers }),
  };
}

/**
 * A task's result from the Fetch API's answer, body left out (the caller puts it inline or spills
 * it). A task succeeds exactly when the answer carries no error code, and is billed exactly when
 * the Fetch API would bill the answer, at the tier that served it (spec-batch-api §1: pricing equals
 * the Fetch API's): a `RESP002` 404/410 or a `RESP007` unknown domain is a failed task that is billed.
 */
export function resultOf(task: BatchTaskV1, answer: FetchAnswer): Omit<BatchTaskResultV1, 'body_base64' | 'body_ref'> {
  const { head } = answer;
  const succeeded = head.error === undefined;
  const tier = head.billed_tier;
  return {
    v: 1,
    run_id: task.run_id,
    seq: task.seq,
    attempt: task.attempt,
    status_code: head.status,
    content_type: head.content_type,
    ...(succeeded && { output_format: outputFormatOf(task.options) }),
    billed_tier: tier,
    credits: tier === null ? 0 : (creditsOfTier(tier) ?? 0),
    ...(head.error && { error: head.error }),
    ...(head.target_status !== undefined && { target_status: head.target_status }),
    ...(head.cache && { cache: head.cache.status }),
    ...(head.change && { change_status: head.change.status }),
  };
}

/**
 * Answers that say nothing about the task but about this worker now: handed back to the queue
 * instead of recorded, so another attempt (here or on another worker) can succeed. `RESP009`:
 * every browser stayed busy; `ERR0001` while shutting down: the worker stopped mid-fetch.
 */
export function isTransient(answer: FetchAnswer, shuttingDown: boolean): boolean {
  const code = answer.head.error?.code;
  return code === 'RESP009' || (shuttingDown && code === 'ERR0001');
}

/**
 * The result of a task not run because its run ended: nothing fetched, nothing billed. It also
 * carries an error, so a scheduler that predates `skipped` records a failed, free task, never a
 * success.
 */
export function skippedResult(task: BatchTaskV1): BatchTaskResultV1 {
  return {
    v: 1,
    run_id: task.run_id,
    seq: task.seq,
    attempt: task.attempt,
    status_code: 500,
    content_type: '',
    billed_tier: null,
    credits: 0,
    error: { code: 'ERR0001', detail: 'Not run: the run had ended before the task started.' },
    skipped: 'run_ended',
  };
}
