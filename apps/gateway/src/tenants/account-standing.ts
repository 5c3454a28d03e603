import type { PlanFeature, PlanProduct } from '@trawl/contracts';
import { Account, creditsLeft } from './account';
import { AccountError, AccountErrorCode } from './account.errors';

/** What a request needs from the account. */
export interface AccountNeeds {
  product: PlanProduct;
  features?: readonly PlanFeature[];
  /** Credits the request may cost at least; `AUTH004` when fewer are left. 0 skips the check. */
  credits?: number;
}

/**
 * Whether the account may make this request now. Order: suspension and subscription (`AUTH011`), e-mail
 * (`AUTH009`), product (`AUTH012`), features (`AUTH010`), credits (`AUTH004`): the caller fixes
 * the most basic problem first. Key expiry (`AUTH005`) is the authenticator's.
 *
 * @throws AccountError
 */
export function assertAccountMay(account: Account, needs: AccountNeeds): void {
  const refusal = accountRefusal(account, needs);
  if (refusal) throw refusal;
}

/** Whether the account may make this request now ({@link assertAccountMay} without the error). */
export function accountMay(account: Account, needs: AccountNeeds): boolean {
  return accountRefusal(account, needs) === undefined;
}

/**
 * Refuses a tenant the operator suspended: `AUTH011`, the spec's code for an account without an
 * active subscription. The API key authenticator calls it on every route (and proxy mode); the
 * checks below call it first, so Fetch sees a suspension at once, other routes within the key
 * cache's TTL.
 *
 * @throws AccountError
 */
export function assertNotSuspended(account: Pick<Account, 'suspendedAt'>): void {
  const refusal = suspensionRefusal(account);
  if (refusal) throw refusal;
}

function suspensionRefusal(account: Pick<Account, 'suspendedAt'>): AccountError | undefined {
  return account.suspendedAt
    ? new AccountError(
        AccountErrorCode.NoActiveSubscription,
        'This account is suspended by the operator of this service; contact them to resume it.',
      )
    : undefined;
}

function accountRefusal(account: Account, needs: AccountNeeds): AccountError | undefined {
  const suspended = suspensionRefusal(account);
  if (suspended) return suspended;
  if (account.subscriptionStatus !== 'active') {
    return new AccountError(
      AccountErrorCode.NoActiveSubscription,
      `Your account has no active subscription (${account.subscriptionStatus}); subscribe to use the API.`,
    );
  }
  if (!account.emailVerified) {
    return new AccountError(AccountErrorCode.EmailNotVerified, 'Verify the e-mail address of your account to use the API.');
  }
  if (!account.products.includes(needs.product)) {
    return new AccountError(AccountErrorCode.ProductNotAllowed, `Your subscription does not include the ${needs.product} product.`, {
      product: needs.product,
    });
  }
  const missing = (needs.features ?? []).find((feature) => !account.features.includes(feature));
  if (missing) {
    return new AccountError(AccountErrorCode.FeatureNotInPlan, `Your plan does not include \`${missing}\`; upgrade or remove it.`, {
      feature: missing,
    });
  }
  const credits = needs.credits ?? 0;
  if (credits > 0 && creditsLeft(account) < credits) {
    return new AccountError(
      AccountErrorCode.CreditsSpent,
      `The credits of this period are spent (${creditsLeft(account)} left, this request needs ${credits}); ` +
        `they renew at ${account.periodEndsAt.toISOString()}. Check usage_percent and period_ends_at before retrying.`,
      { period_ends_at: account.periodEndsAt.toISOString() },
    );
  }
  return undefined;
}
