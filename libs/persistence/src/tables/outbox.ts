import { columnNames, nullableColumnNames } from './columns';

/**
 * An `outbox` row: a message written in the transaction of the change it announces, published to
 * JetStream by the outbox relay (`Nats-Msg-Id` = `id`). Every service that announces changes writes
 * it through `writeToOutbox`; the relay of each reads it. Migration 1763798400000-init.
 */
export interface OutboxRow {
  id: string;
  /** The NATS subject to publish on. */
  subject: string;
  /** The message, held to its subject's contract when written. */
  payload: Record<string, unknown>;
  /** NATS headers to publish with (values not strings are sent as their JSON). */
  headers: Record<string, unknown>;
  created_at: Date;
  /** `null` until the relay has published it. */
  published_at: Date | null;
}

/** Every column of `outbox`. */
export const OUTBOX_COLUMNS = columnNames<OutboxRow>({
  id: true,
  subject: true,
  payload: true,
  headers: true,
  created_at: true,
  published_at: true,
});

/** The columns of `outbox` that may be `NULL`. */
export const OUTBOX_NULLABLE_COLUMNS = nullableColumnNames<OutboxRow>({ published_at: true });
