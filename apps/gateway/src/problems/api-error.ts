import type { ApiErrorCode } from './problem-catalog';

/**
 * Base of every error the API answers with a problem. Domain code throws a feature's subclass
 * (`CrawlError`, `AuthError`, …) with a code from that feature's enum, never an `HttpException`;
 * the one mapping in `problem-catalog.ts` decides status and title.
 */
export abstract class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    /** Tells the caller what to do; shown as the problem's `detail`. Never holds a secret. */
    readonly detail: string,
    /** Extra members of the problem object (e.g. `parameter` naming a bad field). */
    readonly extensions: Record<string, unknown> = {},
    /** Headers that go with this occurrence (e.g. a computed `Retry-After`), over the catalog's own. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}
