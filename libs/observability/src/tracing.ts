import { context, propagation, Context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NoopSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP traces endpoint (e.g. `http://otel-collector:4318/v1/traces`). Without one, Trawl's
   * own spans are still made, so trace ids reach the logs and NATS headers, but nothing is exported
   * and HTTP, undici and pg are not instrumented. */
  otlpEndpoint?: string;
  /** Overrides the exporter (tests). */
  exporter?: SpanExporter;
}

let sdk: NodeSDK | undefined;
let exporting = false;

/** True when spans leave the process (an exporter is configured): callers may skip optional spans otherwise. */
export function tracesExported(): boolean {
  return exporting;
}

/**
 * Starts OpenTelemetry for this process. Call first thing in main.ts, before Nest and pg load, so
 * that HTTP, undici and pg are instrumented. Safe to call twice.
 */
export function startTracing(options: TracingOptions): void {
  if (sdk) return;
  const exporter = options.exporter ?? (options.otlpEndpoint ? new OTLPTraceExporter({ url: options.otlpEndpoint }) : undefined);
  exporting = exporter !== undefined;
  sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: exporter,
    // Without an exporter NodeSDK falls back to OTEL_TRACES_EXPORTER, whose default is OTLP to
    // localhost:4318: every span was serialized and posted to nobody. A processor that drops them
    // keeps real trace ids (logs, NATS headers) at no export cost.
    ...(exporter === undefined && { spanProcessors: [new NoopSpanProcessor()] }),
    textMapPropagator: new W3CTraceContextPropagator(),
    // Automatic spans of every HTTP call, page fetch and query cost a worker ~5% of its CPU
    // (measured by `make bench`); without an exporter nobody sees them. Our own spans still carry
    // trace ids into logs and NATS headers.
    //
    // No client request is traced: every one a service makes goes to a stranger (a target page, a
    // tenant's webhook endpoint, a proxy, a CAPTCHA solver), and a traced request carries our
    // `traceparent` to it, which tells a site the request is a scraper's and hands internal ids to
    // third parties. Services talk to each other over NATS, whose headers carry the trace.
    instrumentations: exporter
      ? [
          new HttpInstrumentation({
            ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)/.test(req.url ?? ''),
            ignoreOutgoingRequestHook: () => true,
          }),
          new UndiciInstrumentation({ ignoreRequestHook: () => true }),
          new PgInstrumentation(),
        ]
      : [],
  });
  sdk.start();
}

export async function stopTracing(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  exporting = false;
  await current?.shutdown().catch(() => undefined);
}

/** The W3C `traceparent` of the active span, to store beside work that continues later. */
export function currentTraceParent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** A context whose parent is the given `traceparent` (or the root when absent). */
export function contextFromTraceParent(traceParent: string | null | undefined): Context {
  if (!traceParent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
}

export const tracer = () => trace.getTracer('trawl');
