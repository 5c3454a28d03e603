import { ApiError } from './api-error';

/** Problems with a request as such, shared by every endpoint. */
export enum RequestErrorCode {
  /** Body not JSON, bad header value, bad query value. */
  InvalidRequest = 'invalid_request',
  /** A body field or query parameter the endpoint does not accept. */
  UnknownParameter = 'unknown_parameter',
  /** A body field is missing or has the wrong type (400). */
  InvalidParameter = 'invalid_parameter',
  /** A body field has the right type but a value outside its range (422, same wire code). */
  ParameterOutOfRange = 'parameter_out_of_range',
  /** No route for this method and path. */
  RouteNotFound = 'not_found',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  /** Anything unexpected: a generic detail, the instance id in the logs. */
  Internal = 'internal_error',
  /** The database (or another backing service) is out of reach for a moment: retry. */
  Unavailable = 'service_unavailable',
}

declare module './api-error' {
  interface ApiErrorCodes {
    request: RequestErrorCode;
  }
}

export class RequestError extends ApiError<RequestErrorCode> {}
