import { ApiError } from '../problems/api-error';

/** Why a tenant's account may not use a product or feature now (spec-extract-fetch §7). */
export enum AccountErrorCode {
  /** The period's credits are spent; they renew at `period_ends_at`. */
  CreditsSpent = 'AUTH004',
  /** The key's user has not verified the e-mail address. */
  EmailNotVerified = 'AUTH009',
  /** The plan does not include a feature the request asks for (js_render, premium_proxy, proxy_mode). */
  FeatureNotInPlan = 'AUTH010',
  /** The subscription is not active (none, or cancelled). */
  NoActiveSubscription = 'AUTH011',
  /** The plan does not include the product (fetch, crawl, batch, extract). */
  ProductNotAllowed = 'AUTH012',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    account: AccountErrorCode;
  }
}

export class AccountError extends ApiError<AccountErrorCode> {}
