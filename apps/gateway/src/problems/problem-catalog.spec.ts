import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import type { ApiErrorCode } from './api-error';
import { API_ERROR_CODE_ENUMS, problemKind } from './problem-catalog';
import { toApiError } from './problem.filter';
import { RequestError, RequestErrorCode } from './request.errors';

const allCodes = API_ERROR_CODE_ENUMS.flatMap((codes) => Object.values(codes) as ApiErrorCode[]);

describe(problemKind.name, () => {
  it('gives every code of every enum a status, wire code and title', () => {
    for (const code of allCodes) {
      const kind = problemKind(code);
      expect(kind.status).toBeGreaterThanOrEqual(400);
      expect(kind.code).toMatch(/^[A-Za-z0-9_]+$/);
      expect(kind.title.length).toBeGreaterThan(0);
    }
  });

  it('has no enum value twice (a switch case would shadow the other)', () => {
    expect(new Set(allCodes).size).toBe(allCodes.length);
  });

  it.each([
    ['invalid_parameter', 400, 'invalid_parameter'],
    ['parameter_out_of_range', 422, 'invalid_parameter'],
    ['AUTH001', 401, 'AUTH001'],
    ['AUTH005', 402, 'AUTH005'],
    ['too_many_crawls', 429, 'too_many_crawls'],
    ['idempotency_request_in_flight', 409, 'idempotency_request_in_flight'],
    ['idempotency_key_reused', 422, 'idempotency_key_reused'],
    ['invalid_start_url', 422, 'invalid_start_url'],
  ])('serves %s as %i %s', (code, status, wire) => {
    expect(problemKind(code as ApiErrorCode)).toMatchObject({ status, code: wire });
  });

  it('sends Retry-After: 30 with too_many_crawls', () => {
    expect(problemKind('too_many_crawls' as ApiErrorCode).headers).toEqual({ 'retry-after': '30' });
  });
});

describe(toApiError.name, () => {
  const request = { method: 'GET', url: '/nope?apikey=secret' };

  it('keeps an ApiError as it is', () => {
    const error = new RequestError(RequestErrorCode.UnknownParameter, 'x');
    expect(toApiError(error, request)).toBe(error);
  });

  it('turns a route 404 into not_found without the query string', () => {
    const error = toApiError(new NotFoundException(), request);
    expect(error.code).toBe(RequestErrorCode.RouteNotFound);
    expect(error.detail).not.toContain('secret');
  });

  it('turns Fastify body errors into request problems', () => {
    const badJson = Object.assign(new Error('bad'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
    expect(toApiError(new BadRequestException('x', { cause: badJson }), request)).toMatchObject({
      code: RequestErrorCode.InvalidRequest,
      detail: 'The request body is not valid JSON.',
    });
    expect(toApiError(new PayloadTooLargeException(), request).code).toBe(RequestErrorCode.PayloadTooLarge);
  });

  it('turns anything else into internal_error with a generic detail', () => {
    const error = toApiError(new Error('password=hunter2 in a stack'), request);
    expect(error.code).toBe(RequestErrorCode.Internal);
    expect(error.detail).not.toContain('hunter2');
  });
});
