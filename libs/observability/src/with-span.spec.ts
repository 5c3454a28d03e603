import { setImmediate as nextTurn } from 'node:timers/promises';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { TestContextManager } from '@trawl/testing';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { contextFromTraceParent } from './tracing';
import { withSpan } from './with-span';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const TRACE_PARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;

describe(withSpan.name, () => {
  // Simple, not batched, so a span is in the exporter as soon as it ends.
  const exporter = new InMemorySpanExporter();

  beforeAll(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new TestContextManager());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  afterEach(() => exporter.reset());

  afterAll(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const finished = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

  it('returns what the work returns and ends the span once, with its kind and attributes and no error', async () => {
    let ends: jest.SpyInstance | undefined;
    const value = await withSpan('unit.work', { kind: SpanKind.CONSUMER, attributes: { 'trawl.n': 3 } }, async (span) => {
      ends = jest.spyOn(span, 'end');
      await nextTurn();
      return 42;
    });
    expect(value).toBe(42);
    expect(ends).toHaveBeenCalledTimes(1);
    const [span] = finished('unit.work');
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.attributes).toEqual({ 'trawl.n': 3 });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events).toEqual([]);
  });

  it('continues the trace of the parent it is given (a stored traceparent)', async () => {
    await withSpan('unit.child', { parent: contextFromTraceParent(TRACE_PARENT) }, () => undefined);
    const [span] = finished('unit.child');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
  });

  it('is ERROR with the exception recorded, and rethrows it, when the work throws', async () => {
    const failure = new Error('publish refused');
    let ends: jest.SpyInstance | undefined;
    await expect(
      withSpan('unit.failing', {}, async (span) => {
        ends = jest.spyOn(span, 'end');
        await nextTurn();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(ends).toHaveBeenCalledTimes(1);
    const [span] = finished('unit.failing');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([['exception', 'publish refused']]);
  });

  it('is ERROR when the work throws before it returns a promise', async () => {
    await expect(
      withSpan('unit.sync-failing', {}, () => {
        throw new Error('bad input');
      }),
    ).rejects.toThrow('bad input');
    expect(finished('unit.sync-failing')[0].status.code).toBe(SpanStatusCode.ERROR);
  });

  it('keeps what the work sets on the span: attributes known after the work, an outcome it caught', async () => {
    await withSpan('unit.outcome', {}, async (span) => {
      await nextTurn();
      span.setAttribute('http.response.status_code', 503);
      span.recordException(new Error('every browser busy'));
    });
    const [span] = finished('unit.outcome');
    expect(span.attributes).toEqual({ 'http.response.status_code': 503 });
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('makes the span active in the work, across awaits, so spans started there are its children', async () => {
    await withSpan('unit.outer', { parent: contextFromTraceParent(TRACE_PARENT) }, async (outer) => {
      await nextTurn();
      expect(trace.getActiveSpan()).toBe(outer);
      // No parent given: the active context, which is the outer span's.
      await withSpan('unit.inner', {}, () => nextTurn());
    });
    const [outer] = finished('unit.outer');
    const [inner] = finished('unit.inner');
    expect(inner.spanContext().traceId).toBe(TRACE_ID);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(outer.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('starts a new trace when there is neither a parent nor an active span', async () => {
    await withSpan('unit.root', { parent: contextFromTraceParent(null) }, () => undefined);
    const [span] = finished('unit.root');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(TRACE_ID);
  });
});
