import { JetStreamApiCodes, JsMsg } from '@nats-io/jetstream';
import type { Consumer } from '@nats-io/jetstream';
import { ConsumerRunnerOptions, Decoded, MessagingLogger } from './inbound-message';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { isApiError } from './provisioning';

const DEFAULT_PULL_EXPIRES_MS = 10_000;
const MIN_PULL_EXPIRES_MS = 1_000;

/** The durable consumer a runner reads from; `consumer_not_found` when it was not provisioned. */
export async function openConsumer<T>(options: ConsumerRunnerOptions<T>): Promise<Consumer> {
  try {
    return await options.js.consumers.get(options.stream, options.durable);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.ConsumerNotFound) || isApiError(error, JetStreamApiCodes.StreamNotFound)) {
      throw new MessagingError(
        MessagingErrorCode.ConsumerNotFound,
        `Consumer ${options.stream}/${options.durable} does not exist; provision it with ensureConsumer first`,
        { cause: error },
      );
    }
    throw error;
  }
}

export function pullExpiresMs<T>(options: ConsumerRunnerOptions<T>): number {
  return Math.max(MIN_PULL_EXPIRES_MS, options.pullExpiresMs ?? DEFAULT_PULL_EXPIRES_MS);
}

export function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new MessagingError(MessagingErrorCode.InvalidOption, `${name} must be a positive integer, got ${value}`);
  }
}

/** Logs a payload that failed validation; the caller terms it. */
export function logInvalid<T>(
  logger: MessagingLogger,
  options: ConsumerRunnerOptions<T>,
  msg: JsMsg,
  decoded: Decoded<T> & { ok: false },
): void {
  logger.warn(
    {
      stream: options.stream,
      durable: options.durable,
      subject: msg.subject,
      seq: msg.seq,
      delivery_count: msg.info.deliveryCount,
      problem: decoded.problem,
      issues: decoded.issues,
    },
    'invalid message payload; terminated',
  );
}

/** A promise that resolves after `ms`, without keeping the process alive. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
