import type { DeliveriesPosition } from './webhook-deliveries.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Opaque cursor of a job's delivery log: base64url of `{j, t, i}` (job, `created_at` µs, delivery
 * id). It holds no secret: reads are scoped to the caller's tenant anyway.
 */
export function encodeDeliveriesCursor(jobId: string, position: DeliveriesPosition): string {
  return Buffer.from(JSON.stringify({ j: jobId, t: position.createdAtMicros, i: position.id })).toString('base64url');
}

/** The position, or `undefined` when the token is not a cursor of this job's deliveries. */
export function decodeDeliveriesCursor(jobId: string, token: string): DeliveriesPosition | undefined {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { j, t, i } = data as Record<string, unknown>;
  if (j !== jobId || typeof t !== 'string' || !/^\d{1,18}$/.test(t) || typeof i !== 'string' || !UUID.test(i)) return undefined;
  return { createdAtMicros: t, id: i };
}
