import { batchBodySubject, BatchBodyRefV1, MessagingTopology } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';

/**
 * Largest body sent inside a result message, in bytes: base64 makes it 4/3 larger, and the JSON of
 * a result batch must stay under NATS's max_payload (1 MiB by default) with its headers.
 */
export const MAX_INLINE_BODY_BYTES = 512 * 1024;
/** Bytes per chunk message of a spilled body (raw bytes, well under max_payload). */
export const BODY_CHUNK_BYTES = 768 * 1024;

/**
 * Stores a body too large for a result message as chunk messages of the bodies stream, one subject
 * per chunk, so the scheduler reads each with one direct get and purges them all after its commit.
 * The msg id makes a republish after a failure a no-op.
 */
export async function spillBody(
  messaging: MessagingConnection,
  topology: MessagingTopology,
  task: { run_id: string; seq: number; attempt: number },
  body: Buffer,
): Promise<BatchBodyRefV1> {
  const chunks = Math.ceil(body.length / BODY_CHUNK_BYTES);
  for (let i = 0; i < chunks; i++) {
    const subject = batchBodySubject(topology, task.run_id, task.seq, task.attempt, i);
    await messaging.js.publish(subject, body.subarray(i * BODY_CHUNK_BYTES, (i + 1) * BODY_CHUNK_BYTES), { msgID: subject });
  }
  return { chunks, bytes: body.length };
}
