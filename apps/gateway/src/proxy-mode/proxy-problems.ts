import { STATUS_CODES } from 'node:http';
import { problem, PROBLEM_CONTENT_TYPE } from '@trawl/http';
import type { Logger } from '@trawl/observability';
import { AuthErrorCode } from '../auth/auth.errors';
import { asFetchProblem } from '../fetch/fetch-problems';
import { FetchErrorCode } from '../fetch/fetch.errors';
import { retryAdvice } from '../fetch/worker-failure';
import { ApiError } from '../problems/api-error';
import { problemKind } from '../problems/problem-catalog';
import { ProxyModeError, ProxyModeErrorCode } from './proxy-mode.errors';

/** A refusal of a proxied request, ready to write on a response or a raw CONNECT socket. */
export interface ProxyProblem {
  status: number;
  /** The wire `code` (`ERR0000` for anything unexpected), for metrics. */
  code: string;
  /** The problem's `instance`, also in the logs for a 5xx. */
  instance: string;
  headers: Record<string, string>;
  body: Buffer;
}

const INTERNAL_DETAIL = 'The service could not handle this request. Retry later; if it keeps failing, quote the instance to support.';
const PROXY_AUTHENTICATE = { 'proxy-authenticate': 'Basic realm="trawl"' };

/**
 * Key problems a client fixes by changing its proxy credentials answer 407 with
 * `Proxy-Authenticate`, as proxy clients expect; the code stays the Fetch endpoint's own
 * (`AUTH001`–`AUTH003`). An expired key keeps its 402: the credentials were right, the key is over.
 */
const PROXY_CREDENTIAL_CODES: ReadonlySet<string> = new Set([
  AuthErrorCode.KeyMissing,
  AuthErrorCode.KeyMalformed,
  AuthErrorCode.KeyNotFound,
]);

/**
 * Turns whatever a proxied request threw into problem+json, as the gateway's `ProblemFilter` does
 * for the Fetch endpoint: the catalog's status, title and headers; a 5xx that is not public shows a
 * generic detail and is logged with its `instance`.
 */
export function proxyProblemOf(error: unknown, logger: Logger): ProxyProblem {
  if (error instanceof ProxyModeError) {
    switch (error.code) {
      case ProxyModeErrorCode.InvalidProxyAuthorization:
        return render(407, error.code, 'Invalid Proxy-Authorization', error.detail, {}, PROXY_AUTHENTICATE);
    }
  }
  if (error instanceof ApiError) return apiProblem(asFetchProblem(error), error, logger);
  return internal(error, logger);
}

/**
 * Proxy mode speaks the Fetch endpoint's codes (a body it cannot take is `REQS004` naming `body`);
 * an internal failure is logged as it was thrown (`original`), not as its Fetch code.
 */
function apiProblem(error: ApiError, original: ApiError, logger: Logger): ProxyProblem {
  const kind = problemKind(error.code);
  const status = PROXY_CREDENTIAL_CODES.has(error.code) ? 407 : kind.status;
  const headers = { ...kind.headers, ...error.headers, ...(status === 407 ? PROXY_AUTHENTICATE : {}) };
  if (status >= 500 && !kind.publicDetail) return internal(original, logger);
  return render(status, kind.code, kind.title, error.detail, status >= 500 ? {} : error.extensions, headers);
}

/** The bytes of a whole HTTP/1.1 answer for a CONNECT refused before any tunnel exists. */
export function rawProblemResponse(answer: ProxyProblem, extraHeaders: Record<string, string> = {}): Buffer {
  const headers = { ...answer.headers, ...extraHeaders, 'content-length': String(answer.body.length), connection: 'close' };
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), answer.body]);
}

/** Proxy mode is the Fetch API: an unexpected failure is its `ERR0000`, retried after 10–30 s. */
function internal(error: unknown, logger: Logger): ProxyProblem {
  const kind = problemKind(FetchErrorCode.Internal);
  const answer = render(kind.status, kind.code, kind.title, INTERNAL_DETAIL, {}, retryAdvice(FetchErrorCode.Internal));
  logger.error({ err: error, instance: answer.instance }, 'proxied request failed');
  return answer;
}

function render(
  status: number,
  code: string,
  title: string,
  detail: string,
  extensions: Record<string, unknown>,
  headers: Readonly<Record<string, string>>,
): ProxyProblem {
  const details = problem(status, code, title, detail, extensions);
  const body = Buffer.from(JSON.stringify(details), 'utf8');
  return { status, code, instance: details.instance, headers: { ...headers, 'content-type': PROBLEM_CONTENT_TYPE }, body };
}
