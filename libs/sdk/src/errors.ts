/** Every error the SDK throws is a `TrawlError`. */
export class TrawlError extends Error {
  override name = 'TrawlError';
}

/** The body of an error answer: `application/problem+json` (RFC 9457) with Trawl's stable `code`. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  /** The stable code to branch on (`REQS002`, `quota_exceeded`, `idempotency_key_conflict`, …). */
  code?: string;
  /** Where the problem happened; for a 5xx, an id the operator finds in the logs. */
  instance?: string;
  [member: string]: unknown;
}

/**
 * An error answer of the API (4xx or 5xx), after any retries. `problem` holds every member of the
 * problem body, extension members included (`invalid_tasks`, `job_id`, …).
 */
export class TrawlApiError extends TrawlError {
  override name = 'TrawlApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The problem's `code`; undefined only when the answer was not problem+json (a proxy's 502). */
  readonly code: string | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  readonly type: string | undefined;
  /** The whole problem body, or `{}` when the answer had none. */
  readonly problem: Problem;
  /** `X-Request-Id` of the answer, when given. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when given. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, problem: Problem, options: { requestId?: string; retryAfterSeconds?: number; method: string; path: string }) {
    const what = problem.code ?? `HTTP ${status}`;
    super(
      `${options.method} ${options.path} failed: ${what}${problem.detail ? ` – ${problem.detail}` : problem.title ? ` – ${problem.title}` : ''}`,
    );
    this.status = status;
    this.problem = problem;
    this.code = typeof problem.code === 'string' ? problem.code : undefined;
    this.title = typeof problem.title === 'string' ? problem.title : undefined;
    this.detail = typeof problem.detail === 'string' ? problem.detail : undefined;
    this.instance = typeof problem.instance === 'string' ? problem.instance : undefined;
    this.type = typeof problem.type === 'string' ? problem.type : undefined;
    this.requestId = options.requestId;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The API could not be reached, or the connection broke before an answer (after any retries). */
export class TrawlConnectionError extends TrawlError {
  override name = 'TrawlConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** The caller's `AbortSignal` ended the call. */
export class TrawlAbortError extends TrawlError {
  override name = 'TrawlAbortError';
  constructor(reason?: unknown) {
    super(reason instanceof Error ? reason.message : 'The operation was aborted', { cause: reason });
  }
}

/** A wait (`waitForCrawl`, `waitForRun`, …) passed its `timeoutMs` before the work ended. */
export class TrawlTimeoutError extends TrawlError {
  override name = 'TrawlTimeoutError';
}

/** A webhook delivery whose signature does not verify (see `verifyWebhook`). */
export class WebhookVerificationError extends TrawlError {
  override name = 'WebhookVerificationError';
  constructor(
    message: string,
    /** Why: `missing_signature`, `malformed_signature`, `unknown_key`, `bad_signature`, `timestamp_outside_tolerance`. */
    readonly reason: 'missing_signature' | 'malformed_signature' | 'unknown_key' | 'bad_signature' | 'timestamp_outside_tolerance',
  ) {
    super(message);
  }
}
