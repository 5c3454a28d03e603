import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { ProxyError, ProxyErrorCode } from './proxy.errors';

/** How long a `session_id` keeps its proxy, from its first use (fetch-details "session_id"): 10 min. */
const SESSION_STICKINESS_MS = 10 * 60_000;

/** Where `session_id` → proxy bindings live, shared by every worker. */
export interface SessionBindings {
  /**
   * The proxy id bound to `key`: `candidate` when the key was free (it is now bound to it), else the
   * id another worker bound first. Never extends a binding's life.
   */
  bind(key: string, candidate: string): Promise<string>;
  /** Replaces a binding whose proxy left the configuration (restarts its 10 minutes). */
  rebind(key: string, id: string): Promise<void>;
}

/**
 * Session bindings in a NATS KV bucket whose `max_age` is the stickiness window. A binding is
 * written once, with create-if-absent, so workers racing on a new session agree on the first writer,
 * and its age — hence its expiry — counts from the first use (NATS 2.9 has no per-key TTL; the
 * bucket's max_age does the same job because a binding is never rewritten while it lives).
 */
export class NatsSessionBindings implements SessionBindings {
  private constructor(private readonly kv: KV) {}

  /**
   * Opens (creating if absent) bucket `bucket`, with `replicas` copies on a NATS cluster
   * (`NATS_STREAM_REPLICAS`, default 1) when it creates it.
   *
   * @param ttlMs life of a binding, in ms. Default: {@link SESSION_STICKINESS_MS} (10 minutes); tests
   *   use a short one. An existing bucket keeps its own max_age (bucket config is not updated here).
   */
  static async open(js: JetStreamClient, bucket: string, ttlMs = SESSION_STICKINESS_MS, replicas = 1): Promise<NatsSessionBindings> {
    const kv = await new Kvm(js).create(bucket, { ttl: ttlMs, history: 1, replicas });
    return new NatsSessionBindings(kv);
  }

  async bind(key: string, candidate: string): Promise<string> {
    // Two tries: a binding can expire between our failed create and our read.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.kv.create(key, candidate);
        return candidate;
      } catch (createError) {
        const existing = await this.read(key);
        if (existing !== undefined) return existing;
        if (attempt === 1) throw storeFailed(createError);
      }
    }
    throw storeFailed(undefined);
  }

  async rebind(key: string, id: string): Promise<void> {
    try {
      await this.kv.put(key, id);
    } catch (error) {
      throw storeFailed(error);
    }
  }

  private async read(key: string): Promise<string | undefined> {
    try {
      const entry = await this.kv.get(key);
      return entry && entry.operation === 'PUT' ? entry.string() : undefined;
    } catch (error) {
      throw storeFailed(error);
    }
  }
}

function storeFailed(cause: unknown): ProxyError {
  return new ProxyError(ProxyErrorCode.SessionStoreFailed, 'The proxy session store is unavailable', { cause });
}
