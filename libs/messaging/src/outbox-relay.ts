import type { Pool } from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import { consoleLogger, MessagingLogger } from './inbound-message';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { publishEach } from './publish';
import { sleep } from './runner-support';

export interface OutboxRelayOptions {
  pool: Pool;
  js: JetStreamClient;
  /**
   * The outbox table, optionally schema-qualified (default `outbox`): `id uuid`, `subject text`,
   * `payload jsonb`, `headers jsonb`, `created_at timestamptz`, `published_at timestamptz null`.
   */
  table?: string;
  /** Rows relayed per transaction (default 100). */
  batchSize?: number;
  /** How often an idle relay looks for new rows, in ms (default 200); `notify()` looks at once. */
  pollIntervalMs?: number;
  /** Default: console. */
  logger?: MessagingLogger;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, unknown> | null;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Publishes outbox rows to JetStream. A row is written in the same transaction as the state change
 * it announces; the relay publishes it with `Nats-Msg-Id` = row id and then marks it published. A
 * relay that dies between the two publishes the row again later and JetStream drops the repeat
 * (within the stream's duplicate window). `FOR UPDATE SKIP LOCKED` lets relays in several replicas
 * share the table without waiting on each other.
 */
export class OutboxRelay {
  private readonly table: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly logger: MessagingLogger;
  private running = false;
  private loop?: Promise<void>;
  private notified = false;
  private wake?: () => void;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = quoteTable(options.table ?? 'outbox');
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.logger = options.logger ?? consoleLogger;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new MessagingError(MessagingErrorCode.InvalidOption, `batchSize must be a positive integer, got ${this.batchSize}`);
    }
  }

  /** Relays in the background until `stop()`: at once while rows remain, else every `pollIntervalMs`. Safe to call twice. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the pass under way and stops. Safe to call twice. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Look for rows now (e.g. right after a transaction that wrote one) instead of at the next poll. */
  notify(): void {
    this.notified = true;
    this.wake?.();
  }

  /**
   * One pass: in one transaction, locks up to `batchSize` of the oldest unpublished rows (skipping
   * rows another relay holds), publishes them, marks the published ones and commits. Returns the
   * number of rows marked. Rows whose publish failed stay unpublished for a later pass; when all
   * fail it rejects with `MessagingError` `publish_failed`.
   */
  async relayOnce(): Promise<number> {
    const client = await this.options.pool.connect();
    // A checked-out client has no listener of the pool's: if the server dies under this pass, its
    // 'error' event would end the process. The query in flight fails anyway, and so does the pass.
    let broken = false;
    const onError = () => (broken = true);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, subject, payload, headers FROM ${this.table}
          WHERE published_at IS NULL
          ORDER BY created_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      const results = await publishEach(
        this.options.js,
        rows.map((row) => ({ subject: row.subject, payload: row.payload, msgId: row.id, headers: stringValues(row.headers) })),
      );
      const published = rows.filter((_, i) => results[i].status === 'fulfilled').map((row) => row.id);
      if (published.length > 0) {
        await client.query(`UPDATE ${this.table} SET published_at = now() WHERE id = ANY($1::uuid[])`, [published]);
      }
      await client.query('COMMIT');
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length === rows.length) {
        throw new MessagingError(MessagingErrorCode.PublishFailed, `None of ${rows.length} outbox rows could be published`, {
          cause: failed[0].reason,
        });
      }
      if (failed.length > 0) {
        this.logger.warn(
          { err: failed[0].reason, failed: failed.length, published: published.length },
          'some outbox rows were not published; retrying later',
        );
      }
      return published.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.notified = false;
      let relayed = 0;
      try {
        relayed = await this.relayOnce();
        failures = 0;
      } catch (error) {
        failures++;
        this.logger.error({ err: error, failures }, 'outbox relay pass failed');
      }
      if (!this.running) break;
      if (failures === 0 && (relayed === this.batchSize || this.notified)) continue;
      const pauseMs = failures === 0 ? this.pollIntervalMs : Math.min(MAX_BACKOFF_MS, this.pollIntervalMs * 2 ** failures);
      await Promise.race([sleep(pauseMs), new Promise<void>((resolve) => (this.wake = resolve))]);
      this.wake = undefined;
    }
  }
}

/** `outbox` or `schema.outbox`, quoted; anything else is refused rather than spliced into SQL. */
function quoteTable(name: string): string {
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((part) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(part))) {
    throw new MessagingError(MessagingErrorCode.InvalidOption, `Outbox table ${JSON.stringify(name)} is not a plain SQL identifier`);
  }
  return parts.map((part) => `"${part}"`).join('.');
}

function stringValues(headers: Record<string, unknown> | null): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value !== null && value !== undefined) result[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return result;
}
