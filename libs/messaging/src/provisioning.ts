import { nanos } from '@nats-io/nats-core';
import type { JetStreamManager } from '@nats-io/jetstream';

export interface StreamSpec {
  name: string;
  subjects: string[];
  retention: 'workqueue' | 'limits';
  /** Oldest message kept, ms (default: unlimited). */
  maxAgeMs?: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped, ms (default 2 min). */
  duplicateWindowMs?: number;
  maxBytes?: number;
  storage?: 'file' | 'memory';
}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubject?: string;
  /** How long a delivered message may stay un-acked before redelivery, ms. */
  ackWaitMs: number;
  maxDeliver: number;
  /** Un-acked messages across all subscribers of the consumer: the back-pressure bound. */
  maxAckPending: number;
  backoffMs?: number[];
}

function isNotFound(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return /not found/i.test(text) || (error as { code?: string | number })?.code === 404;
}

/** Creates the stream, or updates it when its config differs. Idempotent. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const config = {
    name: spec.name,
    subjects: spec.subjects,
    retention: spec.retention,
    storage: spec.storage ?? 'file',
    max_age: spec.maxAgeMs ? nanos(spec.maxAgeMs) : 0,
    // The server refuses a duplicate window longer than the stream keeps messages.
    duplicate_window: nanos(Math.min(spec.duplicateWindowMs ?? 120_000, spec.maxAgeMs ?? Number.MAX_SAFE_INTEGER)),
    max_bytes: spec.maxBytes ?? -1,
  } as const;
  try {
    const info = await jsm.streams.info(spec.name);
    const current = info.config;
    const same =
      JSON.stringify(current.subjects) === JSON.stringify(config.subjects) &&
      current.max_age === config.max_age &&
      current.duplicate_window === config.duplicate_window &&
      current.max_bytes === config.max_bytes;
    if (!same) await jsm.streams.update(spec.name, { ...current, ...config } as never);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add(config as never).catch(async (addError: unknown) => {
      // Another process created it first.
      if (!/already in use|exists/i.test(String((addError as Error)?.message))) throw addError;
    });
  }
}

/** Creates the durable pull consumer (explicit ack), or updates it when its config differs. Idempotent. */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<void> {
  const config = {
    durable_name: spec.durable,
    ack_policy: 'explicit',
    deliver_policy: 'all',
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver,
    max_ack_pending: spec.maxAckPending,
    ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
    ...(spec.backoffMs ? { backoff: spec.backoffMs.map((ms) => nanos(ms)) } : {}),
  } as const;
  try {
    const info = await jsm.consumers.info(spec.stream, spec.durable);
    const c = info.config;
    const same =
      c.ack_wait === config.ack_wait &&
      c.max_deliver === config.max_deliver &&
      c.max_ack_pending === config.max_ack_pending &&
      (c.filter_subject ?? undefined) === (spec.filterSubject ?? undefined);
    if (!same) {
      const { durable_name: _durable, ack_policy: _ack, deliver_policy: _deliver, ...updatable } = config;
      await jsm.consumers.update(spec.stream, spec.durable, updatable as never);
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(spec.stream, config as never);
  }
}

/** Deletes streams (tests' cleanup); missing ones are ignored. */
export async function deleteStreams(jsm: JetStreamManager, names: string[]): Promise<void> {
  for (const name of names) {
    await jsm.streams.delete(name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}
