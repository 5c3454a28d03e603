import type { Account } from './account';
import { AccountErrorCode } from './account.errors';
import { assertAccountMay } from './account-standing';

const account = (fields: Partial<Account> = {}): Account => ({
  tenantId: 't1',
  name: 'Acme',
  creditsLimit: 100,
  creditsUsed: 0,
  periodStartedAt: new Date('2030-01-01T00:00:00Z'),
  periodEndsAt: new Date('2030-01-31T00:00:00Z'),
  periodDays: 30,
  concurrency: 5,
  maxActiveJobs: 3,
  extractDomainsPerPeriod: 10,
  features: ['js_render', 'premium_proxy', 'proxy_mode'],
  products: ['fetch', 'crawl', 'batch', 'extract'],
  subscriptionStatus: 'active',
  suspendedAt: null,
  emailVerified: true,
  rateLimitPerMinute: 600,
  captchaSolver: null,
  ...fields,
});

describe(assertAccountMay.name, () => {
  const fetchJs = { product: 'fetch', features: ['js_render'], credits: 5 } as const;

  it('lets a paying, verified account with the product, feature and credits through', () => {
    expect(() => assertAccountMay(account({ creditsUsed: 95 }), fetchJs)).not.toThrow();
  });

  it.each([
    ['a cancelled subscription', { subscriptionStatus: 'cancelled' }, AccountErrorCode.NoActiveSubscription],
    ['no subscription', { subscriptionStatus: 'none' }, AccountErrorCode.NoActiveSubscription],
    ['a suspended tenant', { suspendedAt: new Date() }, AccountErrorCode.NoActiveSubscription],
    ['an unverified e-mail', { emailVerified: false }, AccountErrorCode.EmailNotVerified],
    ['no fetch product', { products: ['crawl'] }, AccountErrorCode.ProductNotAllowed],
    ['no js_render feature', { features: ['premium_proxy'] }, AccountErrorCode.FeatureNotInPlan],
    ['fewer credits than needed', { creditsUsed: 96 }, AccountErrorCode.CreditsSpent],
  ] as [string, Partial<Account>, AccountErrorCode][])('refuses %s', (_what, fields, code) => {
    expect(() => assertAccountMay(account(fields), fetchJs)).toThrow(expect.objectContaining({ code }));
  });

  it('reports the most basic problem first', () => {
    const broken = account({ subscriptionStatus: 'none', emailVerified: false, products: [], creditsUsed: 100 });
    expect(() => assertAccountMay(broken, fetchJs)).toThrow(expect.objectContaining({ code: AccountErrorCode.NoActiveSubscription }));
  });

  it('names the renewal time when credits are spent', () => {
    expect(() => assertAccountMay(account({ creditsUsed: 100 }), { product: 'crawl', credits: 1 })).toThrow(
      expect.objectContaining({ detail: expect.stringContaining('2030-01-31T00:00:00.000Z') }),
    );
  });
});
