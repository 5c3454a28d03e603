import { MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';

/** Two fetch workers' NATS connections sharing KV buckets, which the suite's `afterAll` removes. */
export interface TwoWorkers {
  a: MessagingConnection;
  b: MessagingConnection;
  /** A new bucket name, `<prefix>_<unique>`, removed after the suite. */
  bucket(prefix: string): string;
}

/** Registers the suite's hooks: two connections opened before it, closed (and buckets removed) after. */
export function twoWorkers(name: string): TwoWorkers {
  const buckets: string[] = [];
  const workers = {
    bucket(prefix: string): string {
      const bucket = `${prefix}_${uniqueSuffix()}`;
      buckets.push(bucket);
      return bucket;
    },
  } as TwoWorkers;
  beforeAll(async () => {
    const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    [workers.a, workers.b] = await Promise.all([
      MessagingConnection.connect({ servers, name: `${name}-a`, requestTimeoutMs: 15_000 }),
      MessagingConnection.connect({ servers, name: `${name}-b`, requestTimeoutMs: 15_000 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(buckets.map((bucket) => workers.a.jsm.streams.delete(`KV_${bucket}`).catch(() => undefined)));
    await Promise.all([workers.a.close(), workers.b.close()]);
  });
  return workers;
}
