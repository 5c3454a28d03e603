import { Attributes, context, Context, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from './tracing';

export interface WithSpanOptions {
  /** The context the span is a child of (`contextFromTraceParent`, a message's `traceContext()`); default: the active one. */
  parent?: Context;
  /** Default: `SpanKind.INTERNAL`. */
  kind?: SpanKind;
  /** Known when the span starts; set those known later on the span `work` receives. */
  attributes?: Attributes;
}

/**
 * Runs `work` in a span named `name`, active in its context so that logs, NATS headers and child
 * spans carry it, and returns what `work` returns. When `work` throws, the span records the
 * exception and is marked ERROR, and the error is rethrown; the span ends either way.
 *
 * An outcome that is expected rather than a failure (a task handed back, a publish the caller
 * retries later) must not be thrown out of `work`: catch it inside and, if it matters, record it
 * on the span.
 */
export async function withSpan<T>(name: string, options: WithSpanOptions, work: (span: Span) => T | Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), work, undefined, span);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
