import type { Subscription } from '@nats-io/nats-core';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';

/** What a kind of stop notice is: its subject, how to read the stopped id, how long to remember it. */
export interface StopNoticeKind {
  subject: string;
  /** The stopped unit's id from a notice's JSON, or `undefined` for a malformed notice. */
  idOf(payload: unknown): string | undefined;
  memoryMs: number;
  /** For the log line of a malformed notice, e.g. `crawl stop`. */
  name: string;
}

/**
 * Units of work (crawls, batch runs) stopped recently, as told by core NATS notices: from the
 * gateway at the stop, repeated by the owning service while the unit still has work out. A worker
 * skips tasks of a stopped unit that have not started, so nothing is fetched (or billed) after a
 * stop. Notices are best effort; Postgres stays the record, this only saves the fetches.
 */
export class StopNotices {
  private readonly stopped = new Map<string, number>();
  private subscription?: Subscription;

  constructor(
    private readonly messaging: MessagingConnection,
    private readonly kind: StopNoticeKind,
    private readonly logger: Logger,
  ) {}

  /** Listens for notices (`WorkerRuntime` calls it). Safe to call twice. */
  start(): void {
    this.subscription ??= this.messaging.nc.subscribe(this.kind.subject, {
      callback: (error, msg) => {
        if (error) return;
        const id = this.kind.idOf(safeJson(msg.string()));
        if (id !== undefined) this.remember(id);
        else this.logger.warn({ subject: msg.subject }, `malformed ${this.kind.name} notice ignored`);
      },
    });
  }

  /** Stops listening. Safe to call twice. */
  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  remember(id: string, now = Date.now()): void {
    this.stopped.set(id, now + this.kind.memoryMs);
    for (const [known, until] of this.stopped) if (until < now) this.stopped.delete(known);
  }

  isStopped(id: string, now = Date.now()): boolean {
    const until = this.stopped.get(id);
    return until !== undefined && until >= now;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
