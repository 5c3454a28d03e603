import type { Pool } from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import { publishJson } from './publish';
import type { ConsumerLogger } from './inbound-message';

export interface OutboxRelayOptions {
  pool: Pool;
  js: JetStreamClient;
  /** Default `outbox` (id uuid, subject, payload jsonb, headers jsonb, created_at, published_at). */
  table?: string;
  /** Rows per pass (default 100). */
  batchSize?: number;
  /** Poll interval when idle, ms (default 200). */
  pollIntervalMs?: number;
  logger?: ConsumerLogger;
}

/**
 * Relays outbox rows to JetStream. Rows are written in the same transaction as the state change
 * they announce; the relay publishes each with `Nats-Msg-Id` = row id, so a relay that crashes
 * between publish and marking the row re-publishes a message JetStream drops as a duplicate.
 * `FOR UPDATE SKIP LOCKED` lets several relays run without waiting on each other.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<number>;
  private readonly table: string;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = options.table ?? 'outbox';
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.notify(), this.options.pollIntervalMs ?? 200);
  }

  /** Relay now. */
  notify(): void {
    if (this.pass) return;
    this.pass = this.relayOnce()
      .catch((error: unknown) => {
        this.options.logger?.error({ err: error }, 'outbox relay pass failed');
        return 0;
      })
      .finally(() => (this.pass = undefined));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /** One pass: publishes up to a batch of unpublished rows; returns how many. */
  async relayOnce(): Promise<number> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string; subject: string; payload: unknown; headers: Record<string, string> }>(
        `SELECT id, subject, payload, headers FROM ${this.table}
         WHERE published_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize ?? 100],
      );
      for (const row of rows) {
        await publishJson(this.options.js, row.subject, row.payload, { msgId: row.id, headers: row.headers });
      }
      if (rows.length > 0) {
        await client.query(`UPDATE ${this.table} SET published_at = now() WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
