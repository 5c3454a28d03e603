import { isConnectionLoss } from '@trawl/persistence';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem, PROBLEM_CONTENT_TYPE } from '@trawl/http';
import type { Logger } from '@trawl/observability';
import { asFetchProblem } from '../fetch/fetch-problems';
import { isFetchRoute } from '../fetch/fetch.routes';
import { ApiError } from './api-error';
import { problemKind } from './problem-catalog';
import { logRefusal, type ProblemLogFields } from './problem-log';
import { RequestError, RequestErrorCode } from './request.errors';

const INTERNAL_DETAIL = 'The service could not handle this request. Retry later; if it keeps failing, quote the instance to support.';

/**
 * The one global exception filter: every error — domain errors, Fastify's own (bad JSON, body too
 * large, no route) and anything unexpected — leaves as `application/problem+json`. Every answer is
 * logged with its `instance` id, tenant, method, route pattern, status and code (`logRefusal`); an
 * internal 5xx is logged as an error with its cause and shows only a generic detail.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const general = toApiError(exception, request);
    const error = isFetchRoute(request.routeOptions?.url) ? asFetchProblem(general) : general;
    const kind = problemKind(error.code);
    const detail = kind.status >= 500 && !kind.publicDetail ? INTERNAL_DETAIL : error.detail;
    const body = problem(kind.status, kind.code, kind.title, detail, kind.status >= 500 ? {} : error.extensions);
    const fields: ProblemLogFields = {
      instance: body.instance,
      status: kind.status,
      code: kind.code,
      method: request.method,
      // The route pattern, not the URL: the URL may carry the `apikey` query parameter.
      route: request.routeOptions?.url ?? '(no route)',
      ...(request.tenant ? { tenant_id: request.tenant.tenantId } : {}),
    };
    if (kind.status >= 500 && !kind.publicDetail) {
      this.logger.error({ err: exception, ...fields }, 'request failed');
    } else {
      logRefusal(this.logger, fields);
    }
    if (reply.sent || reply.raw.headersSent) {
      // A streamed response (download) failed after its headers left: all that is left is to cut it.
      reply.raw.destroy(exception instanceof Error ? exception : undefined);
      return;
    }
    void reply
      .status(kind.status)
      .headers({ ...kind.headers, ...error.headers, 'content-type': PROBLEM_CONTENT_TYPE })
      .send(JSON.stringify(body));
  }
}

/** Turns whatever was thrown into an `ApiError`; anything unrecognised becomes `internal_error`. */
export function toApiError(exception: unknown, request?: { method: string; url: string }): ApiError {
  if (exception instanceof ApiError) return exception;
  // A database restart or failover is a moment to wait out, not the caller's fault nor a bug to hunt.
  if (isConnectionLoss(exception)) {
    return new RequestError(RequestErrorCode.Unavailable, 'The service lost its database for a moment; retry in a few seconds.');
  }
  const status = httpStatusOf(exception);
  if (status === undefined || status >= 500) {
    return new RequestError(RequestErrorCode.Internal, INTERNAL_DETAIL);
  }
  switch (status) {
    case 404: {
      const path = request ? request.url.split('?')[0] : 'this path';
      return new RequestError(
        RequestErrorCode.RouteNotFound,
        `No endpoint answers ${request?.method ?? 'this method'} ${path}; check the method and the path.`,
      );
    }
    case 413:
      return new RequestError(RequestErrorCode.PayloadTooLarge, 'The request body is too large.');
    case 415:
      return new RequestError(RequestErrorCode.UnsupportedMediaType, 'Send the body as JSON with `Content-Type: application/json`.');
    default:
      return new RequestError(RequestErrorCode.InvalidRequest, invalidRequestDetail(exception));
  }
}

function httpStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

function invalidRequestDetail(exception: unknown): string {
  const cause = exception instanceof HttpException ? exception.cause : exception;
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || cause instanceof SyntaxError) {
    return 'The request body is not valid JSON.';
  }
  return 'The request is not valid; check its headers, query and body.';
}
