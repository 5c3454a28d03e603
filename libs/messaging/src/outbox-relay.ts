import type { Pool } from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { OutboxRow } from '@trawl/persistence';
import { consoleLogger, MessagingLogger } from './inbound-message';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { publishEach } from './publish';

export interface OutboxRelayOptions {
  pool: Pool;
  js: JetStreamClient;
  /**
   * The outbox table, optionally schema-qualified (default `outbox`), with the columns of
   * `OutboxRow` (@trawl/persistence).
   */
  table?: string;
  /** Rows relayed per transaction (default 100). */
  batchSize?: number;
  /** Default: console. */
  logger?: MessagingLogger;
}

type RelayedRow = Pick<OutboxRow, 'id' | 'subject' | 'payload' | 'headers'>;

/**
 * Publishes outbox rows to JetStream. A row is written in the same transaction as the state change
 * it announces; the relay publishes it with `Nats-Msg-Id` = row id and then marks it published. A
 * relay that dies between the two publishes the row again later and JetStream drops the repeat
 * (within the stream's duplicate window). `FOR UPDATE SKIP LOCKED` lets relays in several replicas
 * share the table without waiting on each other. A service runs passes in a loop
 * (`outboxRelayLoop` of @trawl/service-kit); a pass that filled its batch says more rows wait.
 */
export class OutboxRelay {
  private readonly table: string;
  /** Most rows one pass relays: a pass that relayed this many may have left more. */
  readonly batchSize: number;
  private readonly logger: MessagingLogger;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = quoteTable(options.table ?? 'outbox');
    this.batchSize = options.batchSize ?? 100;
    this.logger = options.logger ?? consoleLogger;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new MessagingError(MessagingErrorCode.InvalidOption, `batchSize must be a positive integer, got ${this.batchSize}`);
    }
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
      const { rows } = await client.query<RelayedRow>(
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
