import {
  AckPolicy,
  ConsumerConfig,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamManager,
  ReplayPolicy,
  StreamConfig,
  StreamInfo,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { MessagingError, MessagingErrorCode } from './messaging.errors';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** `workqueue`: a message is removed once acknowledged; `limits`: kept until `maxAgeMs`/`maxBytes`. */
  retention: 'workqueue' | 'limits';
  /** Age after which a message is dropped, in ms (default: kept forever). */
  maxAgeMs?: number;
  /**
   * How long a `Nats-Msg-Id` is remembered to drop repeats, in ms (default 120 000). Capped at
   * `maxAgeMs`, which the server requires.
   */
  duplicateWindowMs?: number;
  /** Size after which the oldest messages are dropped, in bytes (default: unlimited). */
  maxBytes?: number;
  /** Messages kept per subject, the oldest dropped first (default: unlimited); 1 makes a subject a slot. */
  maxMsgsPerSubject?: number;
  /** Default `file`: survives a NATS restart. */
  storage?: 'file' | 'memory';
  /**
   * Copies kept across a NATS cluster's nodes, 1–5 (default 1); consumers inherit it. A single
   * server refuses more than 1; an existing stream is brought to it (the server moves the data).
   */
  replicas?: number;
}

export interface ConsumerSpec {
  stream: string;
  /** Name of the durable pull consumer; every replica of a service reads from the same one. */
  durable: string;
  /** Only messages on this subject (wildcards allowed); default all of the stream's subjects. */
  filterSubject?: string;
  /**
   * How long a delivered message may go without ack or `working()` before it is redelivered, in ms.
   * Ignored by the server when `backoffMs` is set.
   */
  ackWaitMs: number;
  /** Deliveries of one message before the server gives up on it (-1: never gives up). */
  maxDeliver: number;
  /** Messages delivered and not yet acknowledged, across all subscribers: the back-pressure bound. */
  maxAckPending: number;
  /**
   * Ack waits of successive deliveries, in ms (the last one repeats). Must be shorter than
   * `maxDeliver`. A handler's `nak` delay is not affected.
   */
  backoffMs?: number[];
}

const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/**
 * Creates the stream, or brings an existing one to `spec` (subjects, age, size, duplicate window).
 * Idempotent and safe to run from several replicas at once. Throws `MessagingError`
 * `stream_config_conflict` when the existing stream differs in retention or storage, which cannot
 * change in place.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const desired = streamConfig(spec);
  // A second round covers a replica that created the stream between our info and our add.
  for (let round = 0; ; round++) {
    const current = await streamInfo(jsm, spec.name);
    if (!current) {
      try {
        await jsm.streams.add(desired);
        return;
      } catch (error) {
        if (round === 0 && isApiError(error, STREAM_NAME_IN_USE)) continue;
        throw conflict(MessagingErrorCode.StreamConfigConflict, `Cannot create stream ${spec.name}${replicasHint(desired)}`, error);
      }
    }
    const config = current.config;
    if (config.retention !== desired.retention || config.storage !== desired.storage) {
      throw new MessagingError(
        MessagingErrorCode.StreamConfigConflict,
        `Stream ${spec.name} exists with retention ${config.retention}/${config.storage}, wanted ` +
          `${desired.retention}/${desired.storage}; these cannot change in place (delete the stream or use another name)`,
      );
    }
    if (!sameStreamLimits(config, desired)) {
      try {
        await jsm.streams.update(spec.name, {
          subjects: desired.subjects,
          max_age: desired.max_age,
          max_bytes: desired.max_bytes,
          max_msgs_per_subject: desired.max_msgs_per_subject,
          duplicate_window: desired.duplicate_window,
          num_replicas: desired.num_replicas,
        });
      } catch (error) {
        throw conflict(MessagingErrorCode.StreamConfigConflict, `Cannot update stream ${spec.name}${replicasHint(desired)}`, error);
      }
    }
    return;
  }
}

/**
 * Creates the durable pull consumer (explicit ack, deliver all), or brings an existing one to `spec`
 * (ack wait, max deliver, max ack pending, filter, backoff). Idempotent. Throws `MessagingError`
 * `consumer_config_conflict` for a consumer that cannot become `spec` (a push consumer, another ack
 * or deliver policy) or that the server refuses to update.
 */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<void> {
  if (spec.backoffMs?.length && spec.maxDeliver > 0 && spec.maxDeliver <= spec.backoffMs.length) {
    throw new MessagingError(
      MessagingErrorCode.InvalidOption,
      `Consumer ${spec.durable}: maxDeliver (${spec.maxDeliver}) must exceed the number of backoff steps (${spec.backoffMs.length})`,
    );
  }
  const desired = consumerConfig(spec);
  const current = await consumerInfo(jsm, spec.stream, spec.durable);
  if (!current) {
    try {
      await jsm.consumers.add(spec.stream, desired);
      return;
    } catch (error) {
      throw conflict(MessagingErrorCode.ConsumerConfigConflict, `Cannot create consumer ${spec.stream}/${spec.durable}`, error);
    }
  }
  const config = current.config;
  if (config.deliver_subject || config.ack_policy !== AckPolicy.Explicit || config.deliver_policy !== DeliverPolicy.All) {
    throw new MessagingError(
      MessagingErrorCode.ConsumerConfigConflict,
      `Consumer ${spec.stream}/${spec.durable} exists as a ${config.deliver_subject ? 'push' : 'pull'} consumer with ack ` +
        `${config.ack_policy} and deliver ${config.deliver_policy}; delete it to make it an explicit-ack pull consumer`,
    );
  }
  if (!sameConsumerLimits(config, desired)) {
    try {
      await jsm.consumers.update(spec.stream, spec.durable, {
        ack_wait: desired.ack_wait,
        max_deliver: desired.max_deliver,
        max_ack_pending: desired.max_ack_pending,
        // undefined (not '') clears a filter: the client puts the filter in the request subject.
        filter_subject: desired.filter_subject,
        backoff: desired.backoff ?? [],
      });
    } catch (error) {
      throw conflict(MessagingErrorCode.ConsumerConfigConflict, `Cannot update consumer ${spec.stream}/${spec.durable}`, error);
    }
  }
}

/** Deletes the named streams and their consumers; names that do not exist are ignored (tests' cleanup). */
export async function deleteStreams(jsm: JetStreamManager, names: string[]): Promise<void> {
  for (const name of names) {
    try {
      await jsm.streams.delete(name);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
    }
  }
}

const STREAM_NAME_IN_USE = 10058;

type DesiredStream = Pick<
  StreamConfig,
  'name' | 'subjects' | 'retention' | 'storage' | 'max_age' | 'max_bytes' | 'max_msgs_per_subject' | 'duplicate_window' | 'num_replicas'
>;

/** The stream configuration `ensureStream` asks the server for (exported for tests of the mapping). */
export function streamConfig(spec: StreamSpec): DesiredStream {
  const replicas = spec.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
    throw new MessagingError(
      MessagingErrorCode.InvalidOption,
      `Stream ${spec.name}: replicas must be an integer from 1 to 5, got ${replicas}`,
    );
  }
  const maxAgeMs = spec.maxAgeMs ?? 0;
  const duplicateWindowMs = Math.min(spec.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS, maxAgeMs > 0 ? maxAgeMs : Infinity);
  return {
    name: spec.name,
    subjects: spec.subjects,
    retention: spec.retention,
    storage: spec.storage ?? 'file',
    max_age: nanos(maxAgeMs),
    max_bytes: spec.maxBytes ?? -1,
    max_msgs_per_subject: spec.maxMsgsPerSubject ?? -1,
    duplicate_window: nanos(duplicateWindowMs),
    num_replicas: replicas,
  };
}

function sameStreamLimits(current: StreamConfig, desired: DesiredStream): boolean {
  return (
    sameSet(current.subjects ?? [], desired.subjects) &&
    current.max_age === desired.max_age &&
    current.max_bytes === desired.max_bytes &&
    (current.max_msgs_per_subject ?? -1) === desired.max_msgs_per_subject &&
    current.duplicate_window === desired.duplicate_window &&
    (current.num_replicas || 1) === desired.num_replicas
  );
}

type DesiredConsumer = Pick<
  ConsumerConfig,
  | 'durable_name'
  | 'ack_policy'
  | 'deliver_policy'
  | 'replay_policy'
  | 'ack_wait'
  | 'max_deliver'
  | 'max_ack_pending'
  | 'filter_subject'
  | 'backoff'
>;

function consumerConfig(spec: ConsumerSpec): DesiredConsumer {
  const backoff = spec.backoffMs?.length ? spec.backoffMs.map((ms) => nanos(ms)) : undefined;
  return {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    // With a backoff the server takes its first step as the ack wait; asking for the same keeps
    // the comparison below stable.
    ack_wait: backoff ? backoff[0] : nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver,
    max_ack_pending: spec.maxAckPending,
    filter_subject: spec.filterSubject || undefined,
    backoff,
  };
}

function sameConsumerLimits(current: ConsumerConfig, desired: DesiredConsumer): boolean {
  return (
    current.ack_wait === desired.ack_wait &&
    current.max_deliver === desired.max_deliver &&
    current.max_ack_pending === desired.max_ack_pending &&
    (current.filter_subject || undefined) === desired.filter_subject &&
    sameList(current.backoff ?? [], desired.backoff ?? [])
  );
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.StreamNotFound)) return undefined;
    throw error;
  }
}

async function consumerInfo(jsm: JetStreamManager, stream: string, durable: string) {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.ConsumerNotFound)) return undefined;
    throw error;
  }
}

/** True for a JetStream API error with the given `err_code` (the numeric codes are stable). */
export function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/** Names the setting behind a refused replica count (a single server refuses R3). */
function replicasHint(desired: DesiredStream): string {
  return (desired.num_replicas ?? 1) > 1
    ? ` with ${desired.num_replicas} replicas (NATS_STREAM_REPLICAS; a single server takes only 1)`
    : '';
}

function conflict(code: MessagingErrorCode, what: string, cause: unknown): MessagingError {
  return new MessagingError(code, `${what}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
}

function sameSet(a: string[], b: string[]): boolean {
  return sameList([...a].sort(), [...b].sort());
}

function sameList<T>(a: T[], b: T[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
