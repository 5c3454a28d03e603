import { autoTiersOf, featuresNeeded } from '@trawl/billing';
import type { BatchTaskMethod, BatchTaskV1, CaptchaSolverV1 } from '@trawl/contracts';
import { FetchParamsError, ForbiddenDomains, taskFetchInputs } from '@trawl/fetch-params';
import { failedResult, TaskResult } from './task-result';

/** A claimed run task with its job task's fields. */
export interface ClaimedTask {
  seq: number;
  attempt: number;
  leaseUntilMs: number;
  url: string;
  method: BatchTaskMethod;
  body: string | null;
  serviceParams: Record<string, unknown> | null;
}

/** What every task of a run shares when it is dispatched. */
export interface RunDispatchContext {
  runId: string;
  tenantId: string;
  jobParams: Record<string, unknown>;
  traceParent: string | null;
  captchaSolver: CaptchaSolverV1 | null;
  /** The tenant's plan features (`js_render`, `premium_proxy`, …). */
  planFeatures: readonly string[];
  forbidden: ForbiddenDomains;
  timeoutMs: number;
  maxBodyBytes: number;
}

/**
 * A claimed task as a worker's message, checked as the Fetch API checks a request before it calls
 * a worker: parameters (`REQS004`/`RESP004`), forbidden domains (`REQS001`), `extract`
 * (`REQS007`: no domain is prepared yet), plan features (`AUTH010`). A task that fails a check is
 * not sent; it fails at once, free, with the code the Fetch API would have answered.
 */
export function batchTaskOf(claim: ClaimedTask, run: RunDispatchContext): { task: BatchTaskV1 } | { failed: TaskResult } {
  const id = { runId: run.runId, seq: claim.seq, attempt: claim.attempt };
  let inputs;
  try {
    inputs = taskFetchInputs(claim, run.jobParams, claim.serviceParams);
  } catch (error) {
    if (!(error instanceof FetchParamsError)) throw error;
    return { failed: failedResult(id, error.code, 400, error.detail) };
  }
  const forbiddenBy = run.forbidden.match(inputs.hostname);
  if (forbiddenBy !== undefined) {
    return { failed: failedResult(id, 'REQS001', 400, `Requests to ${forbiddenBy} are forbidden on this service.`) };
  }
  if (inputs.query.extract) {
    return { failed: failedResult(id, 'REQS007', 403, `Extract is not prepared for ${inputs.hostname}; use css_extractor meanwhile.`) };
  }
  const { options } = inputs.query;
  const missing = featuresNeeded(options).find((feature) => !run.planFeatures.includes(feature));
  if (missing) return { failed: failedResult(id, 'AUTH010', 402, `Your plan does not include \`${missing}\`; upgrade or remove it.`) };
  return {
    task: {
      v: 1,
      run_id: run.runId,
      seq: claim.seq,
      attempt: claim.attempt,
      tenant_id: run.tenantId,
      url: inputs.url,
      method: inputs.method,
      headers: inputs.headers,
      ...(inputs.bodyBase64 !== undefined && { body_base64: inputs.bodyBase64 }),
      options,
      timeout_ms: run.timeoutMs,
      lease_until: claim.leaseUntilMs,
      max_body_bytes: run.maxBodyBytes,
      ...(run.captchaSolver && { captcha_solver: run.captchaSolver }),
      ...(run.traceParent && { trace_parent: run.traceParent }),
      ...(options.mode === 'auto' && { auto_tiers: autoTiersOf(run.planFeatures) }),
    },
  };
}
