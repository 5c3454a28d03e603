import { Client } from 'pg';
import { messagingTopology } from '@trawl/contracts';
import { MessagingConnection } from '@trawl/messaging';

/** What the platform had written at one moment: Postgres's WAL and database, and each JetStream stream of its prefix. */
export interface StorageSnapshot {
  /** Server-wide WAL position, in bytes (the bench's platform is the only writer while it measures). */
  walBytes: number;
  /** The platform database's size on disk (tables, indexes, TOAST). */
  databaseBytes: number;
  /** Messages ever stored (last sequence), by the stream's name in the platform's topology (`crawlWork`…). */
  streams: Record<string, number>;
}

/** What one unit of work (a page, a task) cost in storage, between two snapshots. */
export interface StorageCost {
  walBytes: number;
  databaseBytes: number;
  /** JetStream messages stored, by stream, and in all. */
  messagesByStream: Record<string, number>;
  messages: number;
}

/** Reads Postgres's WAL position and database size and the JetStream streams of the NATS prefix `prefix`. */
export async function storageSnapshot(databaseUrl: string, prefix: string): Promise<StorageSnapshot> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  let walBytes: number;
  let databaseBytes: number;
  try {
    const { rows } = await client.query<{ wal: string; size: string }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS wal, pg_database_size(current_database()) AS size`,
    );
    walBytes = Number(rows[0].wal);
    databaseBytes = Number(rows[0].size);
  } finally {
    await client.end();
  }
  const messaging = await MessagingConnection.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'bench-storage' });
  const streams: StorageSnapshot['streams'] = {};
  try {
    for (const [name, stream] of Object.entries(messagingTopology(prefix).streams)) {
      // A stream the platform has not made (a feature that did not run) stored nothing.
      const info = await messaging.jsm.streams.info(stream).catch(() => undefined);
      if (info) streams[name] = info.state.last_seq;
    }
  } finally {
    await messaging.close();
  }
  return { walBytes, databaseBytes, streams };
}

/** The cost per unit of `units` between two snapshots. */
export function costPer(before: StorageSnapshot, after: StorageSnapshot, units: number): StorageCost {
  const per = (value: number) => value / Math.max(1, units);
  const messagesByStream = Object.fromEntries(
    Object.entries(after.streams)
      .map(([name, messages]) => [name, per(messages - (before.streams[name] ?? 0))] as const)
      .filter(([, messages]) => messages > 0),
  );
  return {
    walBytes: per(after.walBytes - before.walBytes),
    databaseBytes: per(after.databaseBytes - before.databaseBytes),
    messagesByStream,
    messages: Object.values(messagesByStream).reduce((a, b) => a + b, 0),
  };
}

/** One line of what a unit wrote: Postgres WAL and database growth, JetStream messages by stream. */
export function formatStorageCost(cost: StorageCost): string {
  const streams = Object.entries(cost.messagesByStream).map(([name, n]) => `${name} ${n.toFixed(2)}`);
  return (
    `Postgres ${cost.walBytes.toFixed(0)} WAL bytes, database +${cost.databaseBytes.toFixed(0)} bytes; ` +
    `JetStream ${cost.messages.toFixed(2)} messages stored (${streams.join(', ')})`
  );
}
