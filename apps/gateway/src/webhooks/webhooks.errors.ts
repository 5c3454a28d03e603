import { ApiError } from '../problems/api-error';

/** Refusals of the webhook and signing-key endpoints (spec-batch-api §5, §7). */
export enum WebhookErrorCode {
  /** The webhook URL is not `https` (also an unparsable URL). */
  CallbackUrlMustBeHttps = 'callback_url_must_be_https',
  /** `signature: true` while the account has no active signing key. */
  SigningRequiresActiveKey = 'webhook_signing_requires_active_key',
  /** `POST /hmac/keys/rotate/finalize` with no candidate staged. */
  NoKeyRotationInProgress = 'no_key_rotation_in_progress',
  /** The operator has not configured `SECRETS_KEY` (no secret can be sealed or opened), or it cannot open the active key. */
  SigningUnavailable = 'signing_unavailable',
  /** `GET /v1/jobs/{id}/webhook` of a job that has none. */
  WebhookNotFound = 'webhook_not_found',
  /** A deliveries cursor that is not one this endpoint issued for this job. */
  InvalidDeliveriesCursor = 'webhook_deliveries_invalid_cursor',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    webhooks: WebhookErrorCode;
  }
}

export class WebhookError extends ApiError<WebhookErrorCode> {}
