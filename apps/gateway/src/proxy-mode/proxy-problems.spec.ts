import { createLogger } from '@trawl/observability';
import { AuthError, AuthErrorCode } from '../auth/auth.errors';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import { LimitError, LimitErrorCode } from '../limits/limits.errors';
import { ProxyModeError, ProxyModeErrorCode } from './proxy-mode.errors';
import { connectTargetOf } from './proxy-mode.server';
import { proxyProblemOf, rawProblemResponse } from './proxy-problems';

const logger = createLogger('proxy-problems-test', 'silent');
const bodyOf = (problem: { body: Buffer }) => JSON.parse(problem.body.toString('utf8')) as Record<string, unknown>;

describe(proxyProblemOf.name, () => {
  it('serves AUTH007 as 407 with Proxy-Authenticate', () => {
    const problem = proxyProblemOf(new ProxyModeError(ProxyModeErrorCode.InvalidProxyAuthorization, 'Send Basic.'), logger);
    expect(problem).toMatchObject({
      status: 407,
      code: 'AUTH007',
      headers: { 'proxy-authenticate': 'Basic realm="trawl"', 'content-type': 'application/problem+json' },
    });
    expect(bodyOf(problem)).toMatchObject({ status: 407, code: 'AUTH007', detail: 'Send Basic.', instance: problem.instance });
  });

  it.each([AuthErrorCode.KeyMissing, AuthErrorCode.KeyMalformed, AuthErrorCode.KeyNotFound])(
    'turns %s into a 407 that keeps its code',
    (code) => {
      const problem = proxyProblemOf(new AuthError(code, 'Use a current key.'), logger);
      expect({ status: problem.status, code: problem.code, auth: problem.headers['proxy-authenticate'] }).toEqual({
        status: 407,
        code,
        auth: 'Basic realm="trawl"',
      });
    },
  );

  it('keeps an expired key at 402, without Proxy-Authenticate', () => {
    const problem = proxyProblemOf(new AuthError(AuthErrorCode.KeyExpired, 'Expired.'), logger);
    expect(problem.status).toBe(402);
    expect(problem.headers['proxy-authenticate']).toBeUndefined();
  });

  it('serves other codes as the catalog says, with their headers and extensions', () => {
    const blocked = proxyProblemOf(new LimitError(LimitErrorCode.AddressBlocked, 'Blocked.', { 'retry-after': '42' }), logger);
    expect({ status: blocked.status, retryAfter: blocked.headers['retry-after'] }).toEqual({ status: 403, retryAfter: '42' });
    const invalid = proxyProblemOf(new FetchError(FetchErrorCode.InvalidParameters, 'Bad wait.', { parameter: 'wait' }), logger);
    expect(bodyOf(invalid)).toMatchObject({ status: 400, code: 'REQS004', parameter: 'wait' });
  });

  it('hides what an unexpected error says behind a generic 500 ERR0000 to retry after 10 to 30 s', () => {
    const problem = proxyProblemOf(new Error('password=hunter2 leaked'), logger);
    expect(problem.status).toBe(500);
    expect(bodyOf(problem)).toMatchObject({ code: 'ERR0000' });
    expect(Number(problem.headers['retry-after'])).toBeGreaterThanOrEqual(10);
    expect(problem.body.toString('utf8')).not.toContain('hunter2');
  });
});

describe(rawProblemResponse.name, () => {
  it('writes a whole HTTP/1.1 answer that closes the connection', () => {
    const problem = proxyProblemOf(new ProxyModeError(ProxyModeErrorCode.InvalidProxyAuthorization, 'Send Basic.'), logger);
    const raw = rawProblemResponse(problem).toString('utf8');
    expect(raw).toMatch(/^HTTP\/1\.1 407 Proxy Authentication Required\r\n/);
    expect(raw).toContain(`\r\ncontent-length: ${problem.body.length}\r\n`);
    expect(raw).toContain('\r\nconnection: close\r\n');
    expect(raw.endsWith(`\r\n\r\n${problem.body.toString('utf8')}`)).toBe(true);
  });
});

describe(connectTargetOf.name, () => {
  it.each([
    ['shop.test:443', { host: 'shop.test', origin: 'https://shop.test' }],
    ['Shop.Test:8443', { host: 'shop.test', origin: 'https://shop.test:8443' }],
    ['127.0.0.1:443', { host: '127.0.0.1', origin: 'https://127.0.0.1' }],
    ['[::1]:8443', { host: '::1', origin: 'https://[::1]:8443' }],
  ])('reads %s', (target, expected) => {
    expect(connectTargetOf(target)).toEqual(expected);
  });

  it.each([undefined, 'shop.test', '/path', 'user@shop.test:443', 'shop.test:443/x', 'shop.test:99999', ':443'])(
    'refuses %s with REQS004',
    (target) => {
      expect(() => connectTargetOf(target)).toThrow(expect.objectContaining({ code: 'REQS004' }));
    },
  );
});
