import pino, { Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { LoggerService } from '@nestjs/common';

export type { Logger } from 'pino';

/**
 * pino JSON logger for a service. Every line carries the active trace id, so one crawl can be
 * followed through gateway, coordinator and workers. Keys that can hold secrets are redacted.
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'apiKey',
        'api_key',
        'headers["x-api-key"]',
        'headers.authorization',
        '*.apiKey',
        '*.api_key',
        'secret',
        '*.secret',
        'captcha_solver.key',
        '*.captcha_solver.key',
        'captchaSolver.key',
        '*.captchaSolver.key',
      ],
      censor: '[redacted]',
    },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Lets Nest's own messages (bootstrap, routes) go through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
