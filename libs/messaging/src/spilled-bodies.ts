import { JetStreamApiCodes } from '@nats-io/jetstream';
import { bodyChunkBytes } from './body-chunks';
import type { ByteBudget } from './byte-budget';
import type { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { isApiError } from './provisioning';

/** Where a spilled body waits: `chunks` messages, `bytes` bytes in all (the shape of the contracts' body refs). */
export interface SpilledBodyRef {
  chunks: number;
  bytes: number;
}

export interface SpilledBodiesOptions {
  messaging: MessagingConnection;
  /**
   * The stream holding the chunks: limits retention, subjects covering every stem given to this
   * store, a max age (the safety net for bodies nobody purges) and a duplicate window (a chunk
   * published again within it is dropped: its msg id is its subject).
   */
  stream: string;
  /**
   * Bytes of bodies being spilled at once, shared by every writer of the process; a spill waits
   * for room before it copies or publishes anything. Default: no bound.
   */
  budget?: ByteBudget;
  /** Bytes per chunk message (default `bodyChunkBytes(nc)`: `BODY_CHUNK_BYTES`, 512 KiB). */
  chunkBytes?: number;
}

/**
 * Page bodies too large for the result message that answers for them, stored beside it as chunk
 * messages of a limits stream: the writer publishes chunk `i` on `<stem>.<i>` (one subject per
 * chunk, so a reader takes each with one get), the result carries a `SpilledBodyRef`, and the
 * reader reads the chunks back one by one and purges `<stem>.>` once the result is committed.
 * The stem names the claim that produced the body (e.g. run, task, attempt), so applying the same
 * result twice reads the same body, and a purge removes every copy a repeated task wrote.
 */
export class SpilledBodies {
  constructor(private readonly options: SpilledBodiesOptions) {}

  /**
   * Publishes `body` (UTF-8 when a string) as chunks under `stem` and resolves once every chunk is
   * stored. A repeat of the same spill within the stream's duplicate window stores nothing twice.
   * Waits for room in the budget first; a string is encoded only once it has room.
   *
   * @throws MessagingError `publish_failed` when a chunk was not stored; `invalid_option` for an empty body.
   */
  async spill(stem: string, body: Buffer | string): Promise<SpilledBodyRef> {
    const bytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
    if (bytes === 0) throw new MessagingError(MessagingErrorCode.InvalidOption, `Nothing to spill under ${stem}: the body is empty`);
    const release = (await this.options.budget?.acquire(bytes)) ?? (() => undefined);
    try {
      const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      const size = this.chunkBytes();
      const chunks = Math.ceil(bytes / size);
      // One chunk in flight at a time: the client's outbound buffer holds at most one chunk per spill.
      for (let i = 0; i < chunks; i++) {
        const subject = chunkSubject(stem, i);
        try {
          await this.options.messaging.js.publish(subject, data.subarray(i * size, (i + 1) * size), { msgID: subject });
        } catch (error) {
          throw new MessagingError(
            MessagingErrorCode.PublishFailed,
            `Chunk ${i + 1} of ${chunks} of a spilled body was not stored on ${subject}: ${(error as Error)?.message}`,
            { cause: error },
          );
        }
      }
      return { chunks, bytes };
    } finally {
      release();
    }
  }

  /**
   * The body `ref` describes, read chunk by chunk into one buffer of `ref.bytes`; null when it is
   * gone or not whole (a chunk expired or purged, or chunks of another spill of the same stem).
   *
   * @throws MessagingError `body_store_unavailable` when NATS did not answer (try again later).
   */
  async read(stem: string, ref: SpilledBodyRef): Promise<Buffer | null> {
    const body = Buffer.allocUnsafe(ref.bytes);
    let offset = 0;
    for (let i = 0; i < ref.chunks; i++) {
      const stored = await this.getChunk(chunkSubject(stem, i));
      if (!stored || offset + stored.length > ref.bytes) return null;
      body.set(stored, offset);
      offset += stored.length;
    }
    return offset === ref.bytes ? body : null;
  }

  /**
   * Removes every chunk stored under `stem` (call it after the result's commit); resolves with how
   * many messages went.
   *
   * @throws MessagingError `body_store_unavailable` when NATS did not answer; the stream's max age
   *   removes them later.
   */
  async purge(stem: string): Promise<number> {
    try {
      const { purged } = await this.options.messaging.jsm.streams.purge(this.options.stream, { filter: `${stem}.>` });
      return purged;
    } catch (error) {
      throw new MessagingError(
        MessagingErrorCode.BodyStoreUnavailable,
        `Could not purge ${stem}.> from ${this.options.stream}: ${(error as Error)?.message}`,
        {
          cause: error,
        },
      );
    }
  }

  private async getChunk(subject: string): Promise<Uint8Array | null> {
    try {
      const stored = await this.options.messaging.jsm.streams.getMessage(this.options.stream, { last_by_subj: subject });
      return stored?.data ?? null;
    } catch (error) {
      // No stream: nothing it held survives (a reset of NATS's storage); the body is gone.
      if (isApiError(error, JetStreamApiCodes.StreamNotFound) || isApiError(error, JetStreamApiCodes.NoMessageFound)) return null;
      throw new MessagingError(
        MessagingErrorCode.BodyStoreUnavailable,
        `Could not read ${subject} from ${this.options.stream}: ${(error as Error)?.message}`,
        {
          cause: error,
        },
      );
    }
  }

  private chunkBytes(): number {
    return this.options.chunkBytes ?? bodyChunkBytes(this.options.messaging.nc);
  }
}

/** Subject of chunk `index` of the body spilled under `stem`. */
function chunkSubject(stem: string, index: number): string {
  return `${stem}.${index}`;
}

/**
 * The items of one intake round cut into consecutive groups whose spilled bytes (`bytesOf`) stay
 * within `maxBytes`, so a reader holds at most that much of spilled bodies at once; an item larger
 * than `maxBytes` forms a group of its own. Items without a spilled body cost 0. Never empty groups.
 */
export function groupsWithinBytes<T>(items: readonly T[], bytesOf: (item: T) => number, maxBytes: number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && bytes + size > maxBytes) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
