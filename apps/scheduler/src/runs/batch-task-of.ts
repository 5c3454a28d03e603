import { autoTiersOf, featuresNeeded } from '@trawl/billing';
import type { BatchTaskMethod, BatchTaskV1, CaptchaSolverV1 } from '@trawl/contracts';
import { registrableDomain } from '@trawl/egress';
import { extractServing, FetchParamsError, ForbiddenDomains, type ServedExtractRecipe, taskFetchInputs } from '@trawl/fetch-params';
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
  /** The products of the tenant's plan (`fetch`, `batch`, `extract`, …). */
  planProducts: readonly string[];
  forbidden: ForbiddenDomains;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Recipes serving the domains of the tasks being dispatched, by registrable domain (`extract=auto`). */
  servedRecipes: ReadonlyMap<string, ServedExtractRecipe>;
}

/**
 * A claimed task as a worker's message, checked as the Fetch API checks a request before it calls
 * a worker: parameters (`REQS004`/`RESP004`), forbidden domains (`REQS001`), `extract` (`AUTH012`
 * when the plan lacks the Extract product, `REQS007` for a domain Extract does not serve, `REQS002`
 * when it needs rendering), plan features (`AUTH010`). A task that fails a check is not sent; it
 * fails at once, free, with the code the Fetch API would have answered. The plan is read at
 * dispatch, not at the job's creation: a scheduled job runs under the plan of the day it runs.
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
  let { options } = inputs.query;
  if (inputs.query.extract) {
    if (!run.planProducts.includes('extract')) {
      return { failed: failedResult(id, 'AUTH012', 402, 'Your subscription does not include the extract product.') };
    }
    const domain = registrableDomain(inputs.hostname);
    const serving = extractServing(options, domain, run.servedRecipes.get(domain));
    if ('refusal' in serving) return { failed: failedResult(id, serving.refusal.code, serving.refusal.status, serving.refusal.detail) };
    ({ options } = serving);
  }
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
