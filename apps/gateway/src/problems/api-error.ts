import { CodedError } from '@trawl/errors';

/**
 * The codes an `ApiError` may carry, one member per feature. Each feature's `*.errors.ts` adds its
 * enum here by declaration merging, so that this file imports no feature: features import it, the
 * catalog imports the features, and nothing imports back (`error-imports.spec.ts` checks). The
 * compiler still sees every feature's enum in `ApiErrorCode`, wherever the catalog is: a code
 * without a case in `problemKind` fails to compile, and so does an `ApiError` subclass whose enum
 * is not added here.
 *
 * ```ts
 * declare module '../problems/api-error' {
 *   interface ApiErrorCodes {
 *     crawls: CrawlErrorCode;
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members come from the features (above)
export interface ApiErrorCodes {}

/** Every code an `ApiError` can carry. Enum values are unique across the enums (a spec test checks). */
export type ApiErrorCode = ApiErrorCodes[keyof ApiErrorCodes];

/**
 * Base of every error the API answers with a problem. Domain code throws a feature's subclass
 * (`CrawlError`, `AuthError`, …) with a code from that feature's enum, never an `HttpException`;
 * the one mapping in `problem-catalog.ts` decides status and title.
 */
export abstract class ApiError<C extends ApiErrorCode = ApiErrorCode> extends CodedError<C> {
  constructor(
    code: C,
    /** Tells the caller what to do; shown as the problem's `detail`. Never holds a secret. */
    readonly detail: string,
    /** Extra members of the problem object (e.g. `parameter` naming a bad field). */
    readonly extensions: Record<string, unknown> = {},
    /** Headers that go with this occurrence (e.g. a computed `Retry-After`), over the catalog's own. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(code, detail);
  }
}
