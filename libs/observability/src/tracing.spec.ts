import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { context, propagation, trace } from '@opentelemetry/api';
import { createLogger } from './logger';
import { contextFromTraceParent, currentTraceParent, startTracing, stopTracing, tracesExported } from './tracing';
import { withSpan } from './with-span';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A service without an OTLP endpoint: nothing leaves the process, yet its logs and messages carry trace ids. */
describe('startTracing without an exporter', () => {
  beforeAll(() => startTracing({ serviceName: 'tracing-test' }));
  afterAll(async () => {
    await stopTracing();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('exports nothing', () => {
    expect(tracesExported()).toBe(false);
  });

  it('gives each span a real trace id, kept across awaits, that a stored traceparent carries on', async () => {
    const seen = await withSpan('unit.outer', {}, async (span) => {
      await nextTurn();
      return { own: span.spanContext().traceId, active: trace.getActiveSpan()?.spanContext().traceId, stored: currentTraceParent() };
    });
    expect(seen.own).toMatch(/^[0-9a-f]{32}$/);
    expect(seen.own).not.toBe('0'.repeat(32));
    expect(seen.active).toBe(seen.own);
    expect(seen.stored).toMatch(new RegExp(`^00-${seen.own}-[0-9a-f]{16}-01$`));

    const continued = await withSpan('unit.later', { parent: contextFromTraceParent(seen.stored) }, (span) => span.spanContext().traceId);
    expect(continued).toBe(seen.own);
  });

  it('writes the active trace id into every log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('tracing-test', 'info', sink);
    await withSpan('unit.logged', { parent: contextFromTraceParent(`00-${TRACE_ID}-00f067aa0ba902b7-01`) }, async () => {
      await nextTurn();
      logger.info('inside the span');
    });
    expect(JSON.parse(lines[0])).toMatchObject({
      msg: 'inside the span',
      trace_id: TRACE_ID,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });
});
