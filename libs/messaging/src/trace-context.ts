import { context, Context, propagation, ROOT_CONTEXT, TextMapGetter } from '@opentelemetry/api';

/**
 * W3C trace context (`traceparent`, `tracestate`) of the active span, as message headers; empty
 * when there is no active span or no propagator is registered.
 */
export function activeTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The sender's context from message headers whose keys are lower-case (see `InboundMessage.headers`). */
export function traceContextFrom(headers: Record<string, string>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, lowerCaseGetter);
}

const lowerCaseGetter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};
