import { AuthErrorCode } from '../auth/auth.errors';
import { BatchErrorCode } from '../batch/batch.errors';
import { CrawlErrorCode } from '../crawls/crawls.errors';
import { ExtractErrorCode } from '../extract/extract.errors';
import { FetchErrorCode } from '../fetch/fetch.errors';
import { FileTransferErrorCode } from '../file-transfers/file-transfers.errors';
import { IdempotencyErrorCode } from '../idempotency/idempotency.errors';
import { JobExportErrorCode } from '../job-exports/job-exports.errors';
import { JobInputErrorCode } from '../job-inputs/job-inputs.errors';
import { LimitErrorCode } from '../limits/limits.errors';
import { MapErrorCode } from '../map/map.errors';
import { AccountErrorCode } from '../tenants/account.errors';
import { TenantErrorCode } from '../tenants/tenants.errors';
import type { ApiErrorCode, ApiErrorCodes } from './api-error';
import { RequestErrorCode } from './request.errors';
import { WebhookErrorCode } from '../webhooks/webhooks.errors';

/** How one error code is served: status, wire `code`, `title`, and headers that go with it. */
export interface ProblemKind {
  status: number;
  /** The `code` member of the problem object (several enum members may share one, e.g. 400/422). */
  code: string;
  title: string;
  headers?: Readonly<Record<string, string>>;
  /**
   * A 5xx whose detail the code writes for the caller (capacity, deadline, a lost worker: what to do
   * next) and which holds no internals; other 5xx show a generic detail and are logged as errors.
   */
  publicDetail?: boolean;
}

/**
 * The one mapping from error codes to HTTP. Exhaustive: adding a code to any enum of `ApiErrorCodes`
 * (each feature adds its own, see `api-error.ts`) without a case here fails to compile.
 */
export function problemKind(code: ApiErrorCode): ProblemKind {
  switch (code) {
    case RequestErrorCode.InvalidRequest:
      return { status: 400, code, title: 'Invalid request' };
    case RequestErrorCode.UnknownParameter:
      return { status: 400, code, title: 'Unknown parameter' };
    case RequestErrorCode.InvalidParameter:
      return { status: 400, code, title: 'Invalid parameter' };
    case RequestErrorCode.ParameterOutOfRange:
      return { status: 422, code: 'invalid_parameter', title: 'Invalid parameter' };
    case RequestErrorCode.RouteNotFound:
      return { status: 404, code, title: 'Not found' };
    case RequestErrorCode.PayloadTooLarge:
      return { status: 413, code, title: 'Payload too large' };
    case RequestErrorCode.UnsupportedMediaType:
      return { status: 415, code, title: 'Unsupported media type' };
    case RequestErrorCode.Internal:
      return { status: 500, code, title: 'Internal error' };
    case RequestErrorCode.Unavailable:
      return { status: 503, code, title: 'Service unavailable', headers: { 'retry-after': '5' }, publicDetail: true };
    case AuthErrorCode.KeyMissing:
      return { status: 401, code, title: 'API key missing' };
    case AuthErrorCode.KeyMalformed:
      return { status: 401, code, title: 'API key malformed' };
    case AuthErrorCode.KeyNotFound:
      return { status: 401, code, title: 'API key not found' };
    case AuthErrorCode.KeyExpired:
      return { status: 402, code, title: 'API key expired' };
    case AuthErrorCode.AdminTokenRejected:
      return {
        status: 401,
        code: 'unauthorized',
        title: 'Unauthorized',
        headers: { 'www-authenticate': 'Bearer realm="trawl-admin"' },
      };
    case AuthErrorCode.AdminThrottled:
      // The occurrence's own Retry-After says when the address may try again.
      return { status: 429, code: 'too_many_requests', title: 'Too many failed authentications' };
    case CrawlErrorCode.InvalidCursor:
      return { status: 400, code, title: 'Invalid cursor' };
    case CrawlErrorCode.CrawlNotFound:
      return { status: 404, code, title: 'Crawl not found' };
    case CrawlErrorCode.ContentNotFound:
      return { status: 404, code, title: 'Content not found' };
    case CrawlErrorCode.InvalidStartUrl:
      return { status: 422, code, title: 'Invalid start URL' };
    case ExtractErrorCode.InvalidDomain:
      return { status: 400, code, title: 'Invalid domain' };
    case ExtractErrorCode.InvalidExampleUrl:
      return { status: 400, code, title: 'Invalid example URL' };
    case ExtractErrorCode.PreparedDomainNotFound:
      return { status: 404, code, title: 'Prepared domain not found' };
    case ExtractErrorCode.DomainQuotaExceeded:
      return { status: 429, code, title: 'New domains allowance reached' };
    case ExtractErrorCode.InvalidCursor:
      return { status: 400, code: 'invalid_cursor', title: 'Invalid cursor' };
    case CrawlErrorCode.TooManyCrawls:
      // spec-crawl-api §7: the 429 carries `Retry-After: 30` (seconds).
      return { status: 429, code, title: 'Too many crawls', headers: { 'retry-after': '30' } };
    case IdempotencyErrorCode.RequestInFlight:
      return { status: 409, code, title: 'Request in flight' };
    case IdempotencyErrorCode.KeyReused:
      return { status: 422, code, title: 'Idempotency key reused' };
    case FetchErrorCode.ForbiddenDomain:
      return { status: 400, code, title: 'Domain forbidden' };
    case FetchErrorCode.InvalidParameters:
      return { status: 400, code, title: 'Invalid parameters' };
    case FetchErrorCode.MethodNotAllowed:
      return { status: 405, code, title: 'Method not allowed', headers: { allow: 'GET, POST, PUT' } };
    case FetchErrorCode.ExtractNeedsRender:
      return { status: 400, code, title: 'Domain needs JavaScript rendering or premium proxies' };
    case FetchErrorCode.ExtractNotPrepared:
      return { status: 403, code, title: 'Extract not prepared for this domain' };
    case FetchErrorCode.InvalidCssExtractor:
      return { status: 400, code, title: 'Invalid css_extractor' };
    case FetchErrorCode.NoCapacity:
      return { status: 503, code, title: 'All capacity busy', publicDetail: true };
    case FetchErrorCode.WorkerLost:
      return { status: 500, code, title: 'Unknown internal error', publicDetail: true };
    case FetchErrorCode.Internal:
      return { status: 500, code, title: 'Unexpected internal error' };
    case FetchErrorCode.Cancelled:
      return { status: 500, code, title: 'Request cancelled by the client', publicDetail: true };
    case FetchErrorCode.DeadlineExceeded:
      return { status: 504, code, title: 'Maximum time exceeded', publicDetail: true };
    case LimitErrorCode.ConcurrencyFull:
      return { status: 429, code, title: 'Concurrency limit reached' };
    case LimitErrorCode.RateLimited:
      return { status: 429, code, title: 'Rate limit reached' };
    case LimitErrorCode.AddressBlocked:
      return { status: 403, code, title: 'Address blocked' };
    case AccountErrorCode.CreditsSpent:
      return { status: 402, code, title: 'Usage exceeded' };
    case AccountErrorCode.EmailNotVerified:
      return { status: 403, code, title: 'E-mail not verified' };
    case AccountErrorCode.FeatureNotInPlan:
      return { status: 402, code, title: 'Feature not in plan' };
    case AccountErrorCode.NoActiveSubscription:
      return { status: 402, code, title: 'No active subscription' };
    case AccountErrorCode.ProductNotAllowed:
      return { status: 402, code, title: 'Product not allowed' };
    case TenantErrorCode.TenantNotFound:
      return { status: 404, code, title: 'Tenant not found' };
    case TenantErrorCode.SecretsUnavailable:
      return { status: 503, code, title: 'Secrets unavailable', publicDetail: true };
    case TenantErrorCode.ApiKeyNotFound:
      return { status: 404, code, title: 'API key not found' };
    case TenantErrorCode.ApiKeyRevoked:
      return { status: 409, code, title: 'API key revoked' };
    case TenantErrorCode.ApiKeyNameTaken:
      return { status: 409, code, title: 'API key name taken' };
    case TenantErrorCode.InvalidAdminCursor:
      return { status: 400, code: 'invalid_cursor', title: 'Invalid cursor' };
    case WebhookErrorCode.CallbackUrlMustBeHttps:
      return { status: 400, code, title: 'Webhook URL must be https' };
    case WebhookErrorCode.SigningRequiresActiveKey:
      return { status: 400, code, title: 'Webhook signing requires an active key' };
    case WebhookErrorCode.NoKeyRotationInProgress:
      return { status: 409, code, title: 'No key rotation in progress' };
    case WebhookErrorCode.WebhookNotFound:
      return { status: 404, code, title: 'Webhook not found' };
    case WebhookErrorCode.SigningUnavailable:
      return { status: 503, code, title: 'Webhook signing unavailable', publicDetail: true };
    case WebhookErrorCode.InvalidDeliveriesCursor:
      return { status: 400, code: 'invalid_cursor', title: 'Invalid cursor' };
    case BatchErrorCode.JobNotFound:
      return { status: 404, code, title: 'Job not found' };
    case BatchErrorCode.InvalidTasks:
      return { status: 400, code, title: 'Invalid tasks' };
    case BatchErrorCode.QuotaExceeded:
      return { status: 429, code, title: 'Too many active jobs', headers: { 'retry-after': '30' } };
    case BatchErrorCode.IdempotencyKeyConflict:
      return { status: 409, code, title: 'Idempotency key already used' };
    case BatchErrorCode.JobClosed:
      return { status: 409, code, title: 'Job closed' };
    case BatchErrorCode.JobIngesting:
      return { status: 409, code, title: 'Job tasks still being written', headers: { 'retry-after': '5' } };
    case BatchErrorCode.FileInputNotFound:
      return { status: 404, code, title: 'File input not found' };
    case JobInputErrorCode.UploadSignatureInvalid:
      return { status: 403, code, title: 'Upload URL signature invalid' };
    case JobInputErrorCode.UploadUrlExpired:
      return { status: 403, code, title: 'Upload URL expired' };
    case JobInputErrorCode.InputAlreadyUploaded:
      return { status: 409, code, title: 'File input already uploaded' };
    case JobInputErrorCode.UploadInProgress:
      return { status: 409, code, title: 'Upload in progress' };
    case JobInputErrorCode.UploadNotCsv:
      return { status: 415, code, title: 'Upload must be text/csv' };
    case JobInputErrorCode.CsvTooLarge:
      return { status: 413, code, title: 'CSV file too large' };
    case JobInputErrorCode.CsvTooManyRows:
      return { status: 413, code, title: 'Too many CSV rows' };
    case JobInputErrorCode.CsvMalformed:
      return { status: 400, code, title: 'Malformed CSV' };
    case JobInputErrorCode.CsvColumnMissing:
      return { status: 400, code, title: 'CSV column missing' };
    case JobInputErrorCode.CsvInvalidRows:
      return { status: 400, code, title: 'Invalid CSV rows' };
    case JobInputErrorCode.InputNotUploaded:
      return { status: 409, code, title: 'File input not uploaded' };
    case JobInputErrorCode.InputUsed:
      return { status: 409, code, title: 'File input already used' };
    case JobInputErrorCode.InputExpired:
      return { status: 410, code, title: 'File input expired' };
    case JobExportErrorCode.ExportNotFound:
      return { status: 404, code, title: 'Export not found' };
    case JobExportErrorCode.ExportExpired:
      return { status: 410, code, title: 'Export expired' };
    case JobExportErrorCode.ExportTooLarge:
      return { status: 422, code, title: 'Export too large' };
    case JobExportErrorCode.RunNotFinished:
      return { status: 409, code, title: 'Run not finished' };
    case FileTransferErrorCode.TransfersBusy:
      return { status: 503, code, title: 'Too many file transfers', headers: { 'retry-after': '5' }, publicDetail: true };
    case BatchErrorCode.NoRunInFlight:
      return { status: 409, code, title: 'No run in flight' };
    case BatchErrorCode.RunInFlight:
      return { status: 409, code, title: 'A run is in flight' };
    case BatchErrorCode.NothingToRetry:
      return { status: 409, code, title: 'Nothing to retry' };
    case BatchErrorCode.RunNotFound:
      return { status: 404, code, title: 'Run not found' };
    case BatchErrorCode.TaskNotFound:
      return { status: 404, code, title: 'Task not found' };
    case BatchErrorCode.TaskHasNoContent:
      return { status: 409, code, title: 'Task has no content' };
    case BatchErrorCode.ResultUrlExpired:
      return { status: 410, code, title: 'Result URL expired' };
    case BatchErrorCode.JobNotScheduled:
      return { status: 409, code, title: 'Job not scheduled' };
    case BatchErrorCode.InvalidJobsCursor:
      return { status: 400, code: 'invalid_cursor', title: 'Invalid cursor' };
    case MapErrorCode.InvalidUrl:
      return { status: 422, code, title: 'Invalid URL' };
    case MapErrorCode.ForbiddenDomain:
      return { status: 400, code, title: 'Domain forbidden' };
    case MapErrorCode.SiteUnreachable:
      return { status: 422, code, title: 'Site unreachable' };
    case MapErrorCode.NoCapacity:
      return { status: 503, code, title: 'All capacity busy', publicDetail: true };
    case MapErrorCode.MapFailed:
      return { status: 503, code, title: 'Map failed', publicDetail: true };
    default:
      return unreachable(code);
  }
}

function unreachable(code: never): never {
  throw new Error(`No problem mapping for error code ${String(code)}`);
}

/**
 * Every feature's enum, keyed as in `ApiErrorCodes`: a feature whose enum is left out does not
 * compile, so the OpenAPI document and the catalog's tests see every code.
 */
const API_ERROR_CODE_ENUMS_BY_FEATURE = {
  request: RequestErrorCode,
  auth: AuthErrorCode,
  crawls: CrawlErrorCode,
  idempotency: IdempotencyErrorCode,
  fetch: FetchErrorCode,
  limits: LimitErrorCode,
  account: AccountErrorCode,
  tenants: TenantErrorCode,
  webhooks: WebhookErrorCode,
  jobInputs: JobInputErrorCode,
  jobExports: JobExportErrorCode,
  batch: BatchErrorCode,
  extract: ExtractErrorCode,
  fileTransfers: FileTransferErrorCode,
  map: MapErrorCode,
} satisfies { [K in keyof ApiErrorCodes]-?: Record<string, ApiErrorCodes[K]> };

/** Every enum the catalog covers, for tests and documentation generators. */
export const API_ERROR_CODE_ENUMS: readonly Record<string, ApiErrorCode>[] = Object.values(API_ERROR_CODE_ENUMS_BY_FEATURE);
