import { Tier } from '@trawl/billing';
import { EgressError, EgressErrorCode } from '@trawl/egress';
import { creditsFor, FETCH_ERROR, verdictOfError, verdictOfStatus } from './page-outcome';

describe(verdictOfStatus.name, () => {
  it.each([200, 201, 203, 204, 206, 299])('counts %i as fetched', (status) => {
    expect(verdictOfStatus(status)).toEqual({ outcome: 'fetched' });
  });

  it.each([404, 410])('counts %i as failed but billed', (status) => {
    expect(verdictOfStatus(status)).toEqual({ outcome: 'failed_billed', error: `http_${status}` });
  });

  it.each([500, 502, 503, 403, 401, 429, 400, 451, 304, 300, 199])('counts %i as failed and free', (status) => {
    expect(verdictOfStatus(status)).toEqual({ outcome: 'failed', error: `http_${status}` });
  });
});

describe(verdictOfError.name, () => {
  it.each(Object.values(EgressErrorCode))('names egress refusal %s by its code', (code) => {
    expect(verdictOfError(new EgressError(code, 'refused'))).toEqual({ outcome: 'failed', error: code });
  });

  it('gives a generic reason for other errors, never their message', () => {
    expect(verdictOfError(new Error('ECONNRESET at 10.0.0.3:443'))).toEqual({ outcome: 'failed', error: FETCH_ERROR });
  });
});

describe(creditsFor.name, () => {
  it('bills the tier price for fetched and failed_billed pages', () => {
    expect(creditsFor('fetched', Tier.Basic)).toBe(1);
    expect(creditsFor('failed_billed', Tier.Basic)).toBe(1);
    expect(creditsFor('fetched', Tier.PremiumJsRender)).toBe(25);
  });

  it('bills nothing for failed pages', () => {
    expect(creditsFor('failed', Tier.Basic)).toBe(0);
    expect(creditsFor('failed', Tier.Premium)).toBe(0);
  });
});
