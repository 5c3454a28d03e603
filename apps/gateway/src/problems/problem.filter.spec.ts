import { ArgumentsHost } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { CrawlError, CrawlErrorCode } from '../crawls/crawls.errors';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import { ProblemFilter, toApiError } from './problem.filter';

interface FakeRequest {
  method: string;
  url: string;
  routeOptions: { url?: string };
  tenant?: { tenantId: string; keyId: string } | null;
}

function fakeHost(route: FakeRequest = { method: 'POST', url: '/v1/crawls?apikey=secret', routeOptions: { url: '/v1/crawls' } }) {
  const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
  const reply = {
    sent: false,
    raw: { headersSent: false, destroy: jest.fn() },
    status(code: number) {
      sent.status = code;
      return reply;
    },
    headers(values: Record<string, string>) {
      Object.assign(sent.headers, values);
      return reply;
    },
    send(body: string) {
      sent.body = body;
      return reply;
    },
  };
  const request = route;
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  return { host, sent, reply };
}

describe(ProblemFilter.name, () => {
  const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn(), debug: jest.fn() };
  const filter = new ProblemFilter(logger as unknown as Logger);

  beforeEach(() => jest.clearAllMocks());

  describe('catch', () => {
    it('serves a domain error as problem+json with its status, code and headers', () => {
      const { host, sent } = fakeHost();
      filter.catch(new CrawlError(CrawlErrorCode.TooManyCrawls, 'Wait for one to end.'), host);
      expect(sent.status).toBe(429);
      expect(sent.headers).toEqual({ 'retry-after': '30', 'content-type': 'application/problem+json' });
      expect(JSON.parse(sent.body!)).toEqual({
        type: 'https://docs.trawl.dev/errors/too_many_crawls',
        code: 'too_many_crawls',
        title: 'Too many crawls',
        status: 429,
        detail: 'Wait for one to end.',
        instance: expect.stringMatching(/^urn:trawl:request:/),
      });
      expect(logger.error).not.toHaveBeenCalled();
    });

    it('logs a refusal at info with its instance, tenant, method, route pattern, status and code, never the URL', () => {
      const tenant = { tenantId: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d', keyId: 'k1' };
      const { host, sent } = fakeHost({
        method: 'GET',
        url: '/v1/crawls/x?apikey=secret',
        routeOptions: { url: '/v1/crawls/:id' },
        tenant,
      });
      filter.catch(new CrawlError(CrawlErrorCode.CrawlNotFound, 'No such crawl.'), host);
      const { instance } = JSON.parse(sent.body!);
      expect(logger.info).toHaveBeenCalledTimes(1);
      expect(logger.info).toHaveBeenCalledWith(
        { instance, tenant_id: tenant.tenantId, method: 'GET', route: '/v1/crawls/:id', status: 404, code: 'crawl_not_found' },
        'request refused',
      );
      expect(JSON.stringify(logger.info.mock.calls)).not.toContain('secret');
    });

    it('serves an unexpected error as a generic 500 and logs it with the same instance id', () => {
      const { host, sent } = fakeHost();
      const failure = new Error('connection to 10.0.0.7 refused');
      filter.catch(failure, host);
      const body = JSON.parse(sent.body!);
      expect(body).toMatchObject({ status: 500, code: 'internal_error' });
      expect(body.detail).not.toContain('10.0.0.7');
      expect(logger.error).toHaveBeenCalledWith(
        expect.objectContaining({
          err: failure,
          instance: body.instance,
          method: 'POST',
          route: '/v1/crawls',
          status: 500,
          code: 'internal_error',
        }),
        expect.any(String),
      );
    });

    it('serves an unexpected error on the Fetch endpoint as ERR0000 with a Retry-After of 10 to 30 s', () => {
      const { host, sent } = fakeHost({ method: 'GET', url: '/v1/?apikey=secret&url=x', routeOptions: { url: '/v1/' } });
      filter.catch(new Error('connection to 10.0.0.7 refused'), host);
      expect(sent.status).toBe(500);
      expect(JSON.parse(sent.body!)).toMatchObject({ status: 500, code: 'ERR0000' });
      expect(sent.body).not.toContain('10.0.0.7');
      expect(Number(sent.headers['retry-after'])).toBeGreaterThanOrEqual(10);
      expect(Number(sent.headers['retry-after'])).toBeLessThanOrEqual(30);
    });

    it('serves a body the Fetch endpoint cannot take as REQS004 naming body', () => {
      const { host, sent } = fakeHost({ method: 'POST', url: '/v1/?apikey=secret&url=x', routeOptions: { url: '/v1' } });
      filter.catch(Object.assign(new Error('too large'), { statusCode: 413 }), host);
      expect(sent.status).toBe(400);
      expect(JSON.parse(sent.body!)).toMatchObject({ code: 'REQS004', parameter: 'body' });
    });

    it('keeps the detail of a 5xx written for the caller, with its own headers, and logs no error', () => {
      const { host, sent } = fakeHost();
      filter.catch(new FetchError(FetchErrorCode.NoCapacity, 'All capacity is busy; retry in 3 s.', {}, { 'retry-after': '3' }), host);
      expect(sent.status).toBe(503);
      expect(sent.headers).toMatchObject({ 'retry-after': '3' });
      expect(JSON.parse(sent.body!)).toMatchObject({ code: 'RESP009', detail: 'All capacity is busy; retry in 3 s.' });
      expect(logger.error).not.toHaveBeenCalled();
      expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ status: 503, code: 'RESP009' }), 'request refused');
    });

    it('cuts a response whose headers already left instead of sending a second one', () => {
      const { host, sent, reply } = fakeHost();
      reply.raw.headersSent = true;
      filter.catch(new Error('stream broke'), host);
      expect(reply.raw.destroy).toHaveBeenCalled();
      expect(sent.body).toBeUndefined();
    });
  });
});

describe(toApiError.name, () => {
  it('answers a lost database 503 service_unavailable with Retry-After, not a 500', () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), {});
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    for (const error of [lost, refused, new Error('query failed', { cause: lost })]) {
      expect(toApiError(error)).toMatchObject({ code: 'service_unavailable' });
    }
    expect(toApiError(new Error('something else'))).toMatchObject({ code: 'internal_error' });
  });
});
