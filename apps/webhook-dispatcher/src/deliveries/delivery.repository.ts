import type { WebhookDeliveryStatus } from '@trawl/contracts';
import type { Sql, WebhookDeliveriesRow } from '@trawl/persistence';

/** A delivery taken for one attempt; `attempt` is its number (1-based) and guards the write-back. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  tenantId: string;
  url: string;
  signed: boolean;
  body: string;
  attempt: number;
  createdAt: Date;
}

export interface NewDelivery {
  eventId: string;
  tenantId: string;
  jobId: string;
  runId: string;
  eventType: string;
  url: string;
  signed: boolean;
  body: string;
}

export interface AttemptRecord {
  at: Date;
  statusCode: number | null;
  error: string | null;
  elapsedMs: number;
}

/** What follows an attempt: done, failed for good, or tried again at `nextAttemptAt`. */
export type AttemptVerdict = { status: Exclude<WebhookDeliveryStatus, 'pending'> } | { status: 'pending'; nextAttemptAt: Date };

type ClaimRow = Pick<WebhookDeliveriesRow, 'id' | 'event_id' | 'tenant_id' | 'url' | 'signed' | 'body' | 'attempts' | 'created_at'>;

/** SQL of `webhook_deliveries` and `webhook_delivery_attempts` for the dispatcher. */
export class DeliveryRepository {
  /** Records a delivery due now; `false` when the event was already taken in (a redelivered message). */
  async insert(sql: Sql, delivery: NewDelivery, now: Date): Promise<boolean> {
    const rows = await sql.query(
      `INSERT INTO webhook_deliveries (event_id, tenant_id, job_id, run_id, event_type, url, signed, body, status, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING id`,
      [
        delivery.eventId,
        delivery.tenantId,
        delivery.jobId,
        delivery.runId,
        delivery.eventType,
        delivery.url,
        delivery.signed,
        delivery.body,
        now,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Takes up to `limit` due deliveries for one attempt each: bumps their attempt number and pushes
   * `next_attempt_at` to the lease's end, in one statement. `SKIP LOCKED` keeps replicas from taking
   * the same row; the lease makes a crashed replica's attempt due again once it expires.
   */
  async claimDue(sql: Sql, limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await sql.query<ClaimRow>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= $2
          ORDER BY next_attempt_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1, next_attempt_at = $2::timestamptz + $3 * interval '1 millisecond'
         FROM due WHERE d.id = due.id
       RETURNING d.id, d.event_id, d.tenant_id, d.url, d.signed, d.body, d.attempts, d.created_at`,
      [limit, now, leaseMs],
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      tenantId: row.tenant_id,
      url: row.url,
      signed: row.signed,
      body: row.body,
      attempt: row.attempts,
      createdAt: row.created_at,
    }));
  }

  /**
   * Logs the attempt and moves the delivery on, unless another replica has claimed it since (this
   * one's lease ran out): the attempt is still logged, since it was made. Returns whether the
   * delivery's state was changed.
   */
  async recordAttempt(sql: Sql, claim: ClaimedDelivery, attempt: AttemptRecord, verdict: AttemptVerdict): Promise<boolean> {
    await sql.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, error, elapsed_ms)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [claim.id, claim.attempt, attempt.at, attempt.statusCode, attempt.error, attempt.elapsedMs],
    );
    const rows = await sql.query(
      `UPDATE webhook_deliveries
          SET status = $3,
              next_attempt_at = $4,
              finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
        WHERE id = $1 AND attempts = $2 AND status = 'pending'
        RETURNING id`,
      [claim.id, claim.attempt, verdict.status, verdict.status === 'pending' ? verdict.nextAttemptAt : null],
    );
    return rows.length > 0;
  }

  /** Deliveries due and not yet taken (the backlog). */
  async countDue(sql: Sql, now: Date): Promise<number> {
    const [row] = await sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1`,
      [now],
    );
    return Number(row?.n ?? 0);
  }
}
