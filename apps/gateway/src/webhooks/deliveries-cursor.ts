import type { DeliveriesPosition } from './webhook-deliveries.repository';
import { decodeCursorToken, encodeCursorToken } from '@trawl/http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Opaque cursor of a job's delivery log: base64url of `{j, t, i}` (job, `created_at` µs, delivery
 * id). It holds no secret: reads are scoped to the caller's tenant anyway.
 */
export function encodeDeliveriesCursor(jobId: string, position: DeliveriesPosition): string {
  return encodeCursorToken({ j: jobId, t: position.createdAtMicros, i: position.id });
}

/** The position, or `undefined` when the token is not a cursor of this job's deliveries. */
export function decodeDeliveriesCursor(jobId: string, token: string): DeliveriesPosition | undefined {
  const data = decodeCursorToken(token);
  if (!data) return undefined;
  const { j, t, i } = data;
  if (j !== jobId || typeof t !== 'string' || !/^\d{1,18}$/.test(t) || typeof i !== 'string' || !UUID.test(i)) return undefined;
  return { createdAtMicros: t, id: i };
}
