import { Injectable } from '@nestjs/common';
import type { WebhookDeliveryStatus } from '@trawl/contracts';
import { Database, type WebhookDeliveriesRow, type WebhookDeliveryAttemptsRow } from '@trawl/persistence';

/** An attempt as `json_build_object` gives it: `at` as its ISO text. */
export type DeliveryAttemptRecord = Pick<WebhookDeliveryAttemptsRow, 'attempt' | 'status_code' | 'error' | 'elapsed_ms'> & { at: string };

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: string;
  runId: string;
  url: string;
  signed: boolean;
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
  createdAt: Date;
  /** `created_at` in microseconds since the epoch (exact, for the cursor). */
  createdAtMicros: string;
  finishedAt: Date | null;
  attempts: DeliveryAttemptRecord[];
}

/** Position in a job's delivery log (newest first): the last delivery returned. */
export interface DeliveriesPosition {
  createdAtMicros: string;
  id: string;
}

type Row = Pick<
  WebhookDeliveriesRow,
  'id' | 'event_id' | 'event_type' | 'run_id' | 'url' | 'signed' | 'status' | 'next_attempt_at' | 'created_at' | 'finished_at'
> & { created_micros: string; attempt_log: DeliveryAttemptRecord[] };

/** Reads a tenant's webhook delivery log; the dispatcher writes it. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly db: Database) {}

  /** One page of a job's deliveries, newest first, each with every attempt in order. */
  async page(tenantId: string, jobId: string, after: DeliveriesPosition | undefined, limit: number): Promise<DeliveryRecord[]> {
    const params: unknown[] = [tenantId, jobId, limit];
    let keyset = '';
    if (after) {
      params.push(after.createdAtMicros, after.id);
      keyset = `AND (d.created_at, d.id) < (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::uuid)`;
    }
    const rows = await this.db.query<Row>(
      `SELECT d.id, d.event_id, d.event_type, d.run_id, d.url, d.signed, d.status, d.next_attempt_at, d.created_at,
              d.finished_at, (extract(epoch FROM d.created_at) * 1000000)::bigint::text AS created_micros,
              COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'status_code', a.status_code,
                                                          'error', a.error, 'elapsed_ms', a.elapsed_ms) ORDER BY a.attempt)
                          FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempt_log
         FROM webhook_deliveries d
        WHERE d.tenant_id = $1 AND d.job_id = $2 ${keyset}
        ORDER BY d.created_at DESC, d.id DESC
        LIMIT $3`,
      params,
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      runId: row.run_id,
      url: row.url,
      signed: row.signed,
      status: row.status,
      nextAttemptAt: row.next_attempt_at,
      createdAt: row.created_at,
      createdAtMicros: row.created_micros,
      finishedAt: row.finished_at,
      attempts: row.attempt_log,
    }));
  }
}
