import { randomUUID } from 'node:crypto';
import type { CrawlPageResultV1 } from '@trawl/contracts';
import { MessagingConnection, publishManyHeld } from '@trawl/messaging';

export interface ResultPublisherOptions<R> {
  messaging: MessagingConnection;
  /** Subject of result batches (`topology.subjects.crawlPageResults`, `batchResults`). */
  subject: string;
  /** An upper bound of a result's JSON size, in bytes (default: a crawl page result's, `estimatedBytes`). */
  estimate?: (result: R) => number;
  /** Most results in one message (default 64). */
  maxResults?: number;
  /**
   * Most estimated JSON bytes in one message of several results (default 512 KiB, half of NATS's
   * default max_payload); a single larger result (≤ `MAX_RESULT_BYTES`) travels alone.
   */
  maxBytes?: number;
  /** How long the first result of a batch waits for company, in ms (default 5; 0: the rest of its event-loop turn). */
  lingerMs?: number;
  /**
   * How long a batch NATS refused (a restart, a failover) is held and published again after the
   * reconnect before its results are given up on (their tasks handed back), in ms (default 20 000:
   * inside the 30 s ack wait of the tasks, so they are not redelivered meanwhile).
   */
  holdMs?: number;
  /** Called when a batch starts being held (for a log line), with the first failure and the results in it. */
  onHold?: (error: unknown, results: number) => void;
}

interface Pending<R> {
  result: R;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers results for a few milliseconds and publishes them as one message `{v: 1, results}`.
 * `publish()` resolves once the batch holding the result is stored in JetStream, so a task is
 * still acked only after its result is safe. A batch refused while NATS is away is held and
 * published again once it is back, under the same `Nats-Msg-Id`, so a batch whose ack alone was
 * lost is not stored twice.
 */
export class ResultPublisher<R = CrawlPageResultV1> {
  private batch: Pending<R>[] = [];
  private batchBytes = 0;
  /** Cancels the pending flush of the batch being gathered, if one is scheduled. */
  private cancelFlush?: () => void;
  private readonly maxResults: number;
  private readonly maxBytes: number;
  private readonly lingerMs: number;
  private readonly holdMs: number;
  private readonly estimate: (result: R) => number;

  constructor(private readonly options: ResultPublisherOptions<R>) {
    this.estimate = options.estimate ?? (estimatedBytes as unknown as (result: R) => number);
    this.maxResults = options.maxResults ?? 64;
    this.maxBytes = options.maxBytes ?? 512 * 1024;
    this.lingerMs = options.lingerMs ?? 5;
    this.holdMs = options.holdMs ?? 20_000;
  }

  publish(result: R): Promise<void> {
    const bytes = this.estimate(result);
    if (this.batch.length > 0 && this.batchBytes + bytes > this.maxBytes) this.flush();
    return new Promise<void>((resolve, reject) => {
      this.batch.push({ result, resolve, reject });
      this.batchBytes += bytes;
      if (this.batch.length >= this.maxResults || this.batchBytes >= this.maxBytes) this.flush();
      else this.cancelFlush ??= this.scheduleFlush();
    });
  }

  private scheduleFlush(): () => void {
    if (this.lingerMs > 0) {
      const timer = setTimeout(() => this.flush(), this.lingerMs);
      return () => clearTimeout(timer);
    }
    const immediate = setImmediate(() => this.flush());
    return () => clearImmediate(immediate);
  }

  /** Publishes what is gathered now (also used on shutdown). */
  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.batchBytes = 0;
    const message = { v: 1, results: batch.map((p) => p.result) };
    const item = { subject: this.options.subject, payload: message, msgId: randomUUID() };
    const onHold = this.options.onHold && ((error: unknown) => this.options.onHold?.(error, batch.length));
    publishManyHeld(this.options.messaging, [item], { holdMs: this.holdMs, onHold }).then(
      () => batch.forEach((p) => p.resolve()),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
  }
}

/**
 * An upper bound of the result's JSON size without serialising it: links are normalised URLs
 * (ASCII, nothing JSON escapes), and HTML is counted at its worst escaping (6 bytes a character).
 */
export function estimatedBytes(result: CrawlPageResultV1): number {
  let bytes = 512 + (result.final_url?.length ?? 0) * 3 + (result.error?.length ?? 0) * 6 + (result.content_type?.length ?? 0);
  for (const link of result.links) bytes += link.length + 3;
  if (result.content !== undefined) bytes += result.content.length * 6;
  return bytes;
}
