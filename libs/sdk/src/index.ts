export { DEFAULT_BASE_URL, SDK_VERSION, TrawlClient, type TrawlClientOptions } from './client';
export {
  TrawlAbortError,
  TrawlApiError,
  TrawlConnectionError,
  TrawlError,
  TrawlTimeoutError,
  WebhookVerificationError,
  type Problem,
} from './errors';
export type { RetryEvent } from './http/transport';
export type { RetryOptions } from './http/retry-policy';
export { ndjsonLines } from './http/ndjson';
export type { CrawlResultsOptions } from './resources/crawls';
export { isRunFinished } from './resources/jobs';
export {
  encodeFetchOptions,
  proxyModeUrl,
  type ExtractResult,
  type FetchBody,
  type FetchOptions,
  type FetchResult,
  type JsInstruction,
} from './resources/fetch';
export type { ServedDomain } from './resources/extract';
export type { MapOptions } from './resources/map';
export type { WaitOptions } from './waiting';
export {
  verifyWebhook,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookSecrets,
} from './webhooks/verify-webhook';
export type * from './generated/api-types';
