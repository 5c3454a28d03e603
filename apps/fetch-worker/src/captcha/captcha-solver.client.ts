import type { Agent } from 'undici';
import type { CaptchaSolverV1 } from '@trawl/contracts';
import { EgressPolicy, safeRequest } from '@trawl/egress';
import type { CaptchaWidget } from './captcha-challenge';
import { CaptchaError, CaptchaErrorCode } from './captcha.errors';

/** What is to be solved. */
export interface CaptchaTask {
  widget: CaptchaWidget;
  sitekey: string;
  /** The page that shows the challenge. */
  pageUrl: string;
}

export interface CaptchaSolverClientOptions {
  /** The solver is a stranger's endpoint (the tenant configures it): it goes through the egress policy. */
  policy: EgressPolicy;
  agent: Agent;
  /** Wait between two polls of a task, in ms. Default: 5,000 (2captcha asks for at least 5 s). */
  pollIntervalMs?: number;
  /** Longest wait for one solver HTTP call, in ms. Default: 30,000. */
  requestTimeoutMs?: number;
}

/** 2captcha's answers that mean the key itself is refused (REQS006), as opposed to a failed solve. */
const KEY_ERRORS = new Set(['ERROR_WRONG_USER_KEY', 'ERROR_KEY_DOES_NOT_EXIST', 'ERROR_ZERO_BALANCE', 'ERROR_IP_NOT_ALLOWED', 'IP_BANNED']);
const NOT_READY = 'CAPCHA_NOT_READY';
/** The 2captcha `method` and sitekey parameter of each widget. */
const TASK_PARAMETERS: Record<CaptchaWidget, { method: string; sitekeyParameter: string }> = {
  recaptcha: { method: 'userrecaptcha', sitekeyParameter: 'googlekey' },
  hcaptcha: { method: 'hcaptcha', sitekeyParameter: 'sitekey' },
  turnstile: { method: 'turnstile', sitekeyParameter: 'sitekey' },
};
/** A solver answer is a small JSON object; anything longer is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * A client of CAPTCHA solving services that speak the 2captcha API (2captcha, and the services
 * that copy it): `POST <endpoint>/in.php` (key, method, sitekey, pageurl, `json=1`) answers
 * `{status: 1, request: <task id>}`; then `GET <endpoint>/res.php?action=get&id=…&json=1` answers
 * `{status: 0, request: "CAPCHA_NOT_READY"}` until `{status: 1, request: <token>}`. A tenant
 * configures `captcha_solver: {endpoint, key}`; the key is sent to the solver only, never logged.
 */
export class CaptchaSolverClient {
  private readonly pollIntervalMs: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: CaptchaSolverClientOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /**
   * Solves one challenge and returns the token.
   *
   * @param deadlineAt epoch ms after which solving is given up (`Unsolved`)
   * @throws CaptchaError `InvalidKey` when the solver refuses the key, `Unsolved` for anything else
   *   (unsolvable, solver down, out of time); the signal's reason when it aborts.
   */
  async solve(solver: CaptchaSolverV1, task: CaptchaTask, deadlineAt: number, signal: AbortSignal): Promise<string> {
    const { method, sitekeyParameter } = TASK_PARAMETERS[task.widget];
    const submitted = await this.call(solver, 'in.php', deadlineAt, signal, {
      method: 'POST',
      form: { key: solver.key, method, [sitekeyParameter]: task.sitekey, pageurl: task.pageUrl, json: '1' },
    });
    if (submitted.status !== 1) throw refusal(submitted.request);
    const id = submitted.request;
    for (;;) {
      await pause(Math.min(this.pollIntervalMs, Math.max(0, deadlineAt - Date.now())), signal);
      if (Date.now() >= deadlineAt) throw new CaptchaError(CaptchaErrorCode.Unsolved, 'The CAPTCHA solver did not answer in time.');
      const polled = await this.call(solver, 'res.php', deadlineAt, signal, {
        method: 'GET',
        query: { key: solver.key, action: 'get', id, json: '1' },
      });
      if (polled.status === 1) return polled.request;
      if (polled.request !== NOT_READY) throw refusal(polled.request);
    }
  }

  private async call(
    solver: CaptchaSolverV1,
    path: 'in.php' | 'res.php',
    deadlineAt: number,
    signal: AbortSignal,
    request: { method: 'GET' | 'POST'; form?: Record<string, string>; query?: Record<string, string> },
  ): Promise<{ status: number; request: string }> {
    const url = new URL(path, solver.endpoint.endsWith('/') ? solver.endpoint : `${solver.endpoint}/`);
    if (request.query) url.search = new URLSearchParams(request.query).toString();
    const timeoutMs = Math.max(1, Math.min(this.requestTimeoutMs, deadlineAt - Date.now()));
    let response;
    try {
      response = await safeRequest(this.options.policy, this.options.agent, url, {
        method: request.method,
        headers: request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
        body: request.form ? new URLSearchParams(request.form).toString() : undefined,
        maxBodyBytes: MAX_ANSWER_BYTES,
        maxRedirects: 0,
        timeoutMs,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      // The cause holds the URL with the key in its query: keep only the message's words.
      throw new CaptchaError(CaptchaErrorCode.Unsolved, `The CAPTCHA solver could not be reached (${(error as Error).message}).`);
    }
    const answer = parseAnswer(response.body);
    if (response.status !== 200 || !answer) {
      throw new CaptchaError(CaptchaErrorCode.Unsolved, `The CAPTCHA solver answered ${response.status} without a 2captcha answer.`);
    }
    return answer;
  }
}

function parseAnswer(body: Buffer): { status: number; request: string } | undefined {
  try {
    const value = JSON.parse(body.toString('utf8')) as { status?: unknown; request?: unknown };
    if (typeof value.status === 'number' && typeof value.request === 'string') return { status: value.status, request: value.request };
  } catch {
    // not JSON: answered below as a failed solve
  }
  return undefined;
}

function refusal(answer: string): CaptchaError {
  // Only the solver's error name is echoed: it is a short constant like ERROR_CAPTCHA_UNSOLVABLE.
  const name = /^[A-Z_]{1,64}$/.test(answer) ? answer : 'an unknown error';
  if (KEY_ERRORS.has(answer)) return new CaptchaError(CaptchaErrorCode.InvalidKey, `The CAPTCHA solver refused the key (${name}).`);
  return new CaptchaError(CaptchaErrorCode.Unsolved, `The CAPTCHA solver failed (${name}).`);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
