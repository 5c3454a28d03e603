import { EgressError, EgressErrorCode } from '@trawl/egress';
import { BrowserError, BrowserErrorCode } from '../browser';
import { fetchFailureOf } from './fetch-failures';
import { FetchRequestError } from './fetch-request.errors';
import { PolitenessError } from '../politeness';

const URL_ = 'https://shop.example:8443/a';
const egress = (code: EgressErrorCode, cause?: unknown) => new EgressError(code, 'egress said no', { cause });
const withCode = (code: string) => Object.assign(new Error(code), { code });

describe(fetchFailureOf.name, () => {
  it.each<[string, EgressError, string, boolean]>([
    ['an invalid redirect', egress(EgressErrorCode.InvalidUrl), 'REQS004', false],
    ['a refused address', egress(EgressErrorCode.BlockedAddress), 'RESP001', false],
    ['a name that does not exist', egress(EgressErrorCode.DnsFailure, withCode('ENOTFOUND')), 'RESP007', true],
    ['a name without answers', egress(EgressErrorCode.DnsFailure), 'RESP007', true],
    ['a resolver that failed for now', egress(EgressErrorCode.DnsFailure, withCode('EAI_AGAIN')), 'RESP001', false],
    ['a redirect loop', egress(EgressErrorCode.TooManyRedirects), 'RESP001', false],
    ['a body too large', egress(EgressErrorCode.BodyTooLarge), 'RESP005', false],
    ['a timeout', egress(EgressErrorCode.Timeout), 'CTX0002', false],
    ['a refused connection', egress(EgressErrorCode.ConnectFailed, withCode('ECONNREFUSED')), 'RESP001', false],
    ['a self-signed certificate', egress(EgressErrorCode.ConnectFailed, withCode('DEPTH_ZERO_SELF_SIGNED_CERT')), 'RESP008', false],
    [
      'an expired certificate deep in causes',
      egress(EgressErrorCode.ConnectFailed, new Error('x', { cause: withCode('CERT_HAS_EXPIRED') })),
      'RESP008',
      false,
    ],
    [
      'a wrong host name on the certificate',
      egress(EgressErrorCode.ConnectFailed, withCode('ERR_TLS_CERT_ALTNAME_INVALID')),
      'RESP008',
      false,
    ],
    [
      'a certificate error among Happy Eyeballs attempts',
      egress(EgressErrorCode.ConnectFailed, new AggregateError([withCode('ECONNREFUSED'), withCode('CERT_UNTRUSTED')])),
      'RESP008',
      false,
    ],
  ])('maps %s', (_what, error, code, billed) => {
    expect(fetchFailureOf(error, URL_)).toMatchObject({ code, billed });
  });

  it('names the host the tenant asked for, never an address', () => {
    expect(fetchFailureOf(egress(EgressErrorCode.BlockedAddress), URL_).detail).toBe(
      'shop.example:8443 cannot be fetched: it is not a public address.',
    );
  });

  it('keeps a FetchRequestError as it is and rethrows what is not a fetch failure', () => {
    const own = new FetchRequestError('RESP004', 'bad selector');
    expect(fetchFailureOf(own, URL_)).toBe(own);
    const bug = new TypeError('undefined is not a function');
    expect(() => fetchFailureOf(bug, URL_)).toThrow(bug);
  });
});

describe('fetchFailureOf (browser engine)', () => {
  const browser = (code: BrowserErrorCode, message = 'x') => new BrowserError(code, message);

  it.each<[BrowserErrorCode, string, string, boolean]>([
    [BrowserErrorCode.EgressRefused, 'x', 'RESP001', false],
    [BrowserErrorCode.DnsFailure, 'x', 'RESP007', true],
    [BrowserErrorCode.NavigationFailed, 'The page could not be loaded: net::ERR_CONNECTION_REFUSED', 'RESP001', false],
    [BrowserErrorCode.NavigationFailed, 'The page could not be loaded: net::ERR_CERT_AUTHORITY_INVALID', 'RESP008', false],
    [BrowserErrorCode.DeadlineExceeded, 'x', 'CTX0002', false],
    [BrowserErrorCode.PoolBusy, 'x', 'RESP009', false],
    [BrowserErrorCode.BrowserCrashed, 'x', 'ERR0001', false],
    [BrowserErrorCode.ScreenshotFailed, 'x', 'RESP001', false],
  ])('maps %s (%s)', (code, message, expected, billed) => {
    expect(fetchFailureOf(browser(code, message), URL_)).toMatchObject({ code: expected, billed });
  });
  it('answers busy (RESP009, free) for a load held back for its host, naming the host and why', () => {
    const answer = fetchFailureOf(new PolitenessError('shop.example', 'backoff', 40_000), URL_);
    expect(answer).toMatchObject({ code: 'RESP009', billed: false });
    expect(answer.detail).toBe('shop.example asked to slow down (429/503); Trawl holds back from it for 40 s.');
    const limited = fetchFailureOf(new PolitenessError('shop.example', 'concurrency', 1_000), URL_);
    expect(limited.detail).toBe("shop.example is at this installation's per-host concurrency limit; retry in 1 s.");
  });
});
