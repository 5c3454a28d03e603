/**
 * Base of every domain error: `code` is a member of the feature's enum, which callers switch on
 * (the gateway's problem catalog, a consumer's ack / nak / term); `message` is for people and may
 * change. `name` is the subclass's own (`CrawlError`, `EgressError`, …) so logs say which feature
 * threw, and `cause` keeps the underlying error for the logs.
 *
 * A subclass without fields of its own is one line: `class EgressError extends CodedError<EgressErrorCode> {}`.
 */
export abstract class CodedError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
