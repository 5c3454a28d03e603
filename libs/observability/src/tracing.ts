import { context, propagation, Context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, NoopSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { NodeSDK } from '@opentelemetry/sdk-node';

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP traces endpoint (e.g. `http://otel-collector:4318/v1/traces`). Without one, Trawl's
   * own spans are still made, so trace ids reach the logs and NATS headers, but nothing is exported
   * and HTTP, undici and pg are not instrumented. */
  otlpEndpoint?: string;
  /** Overrides the exporter (tests). */
  exporter?: SpanExporter;
}

/** What `stopTracing` shuts down: the SDK when spans are exported, else the local provider. */
let running: { shutdown(): Promise<unknown> } | undefined;
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
  if (running) return;
  if (options.exporter === undefined && options.otlpEndpoint === undefined) {
    running = startLocalTracing();
    return;
  }
  running = startExportingSdk(options);
  exporting = true;
}

/**
 * Without an exporter: the pieces NodeSDK would register for traces (a tracer provider, the
 * async-local-storage context manager, the W3C propagator), spans dropped by a no-op processor.
 * NodeSDK itself is not loaded: its module loads every exporter it knows (gRPC, protobuf, Zipkin,
 * Prometheus, logs), a third of a service's start-up CPU, for spans that go nowhere.
 */
function startLocalTracing(): BasicTracerProvider {
  const contextManager = new AsyncLocalStorageContextManager();
  contextManager.enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The SDK's default exporter would post every span to localhost:4318; a processor that drops
  // them keeps real trace ids (logs, NATS headers) at no export cost.
  const provider = new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] });
  trace.setGlobalTracerProvider(provider);
  return provider;
}

/** With an exporter: NodeSDK, with HTTP, undici and pg instrumented. Loaded only here (see startLocalTracing). */
function startExportingSdk(options: TracingOptions): NodeSDK {
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: options.exporter ?? new OTLPTraceExporter({ url: options.otlpEndpoint }),
    textMapPropagator: new W3CTraceContextPropagator(),
    // Automatic spans of every HTTP call, page fetch and query cost a worker ~5% of its CPU
    // (measured by `make bench`); they are made only when someone sees them.
    //
    // No client request is traced: every one a service makes goes to a stranger (a target page, a
    // tenant's webhook endpoint, a proxy, a CAPTCHA solver), and a traced request carries our
    // `traceparent` to it, which tells a site the request is a scraper's and hands internal ids to
    // third parties. Services talk to each other over NATS, whose headers carry the trace.
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)/.test(req.url ?? ''),
        ignoreOutgoingRequestHook: () => true,
      }),
      new UndiciInstrumentation({ ignoreRequestHook: () => true }),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}

export async function stopTracing(): Promise<void> {
  const current = running;
  running = undefined;
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
