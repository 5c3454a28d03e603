import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';

export interface PullPumpOptions {
  consumer: Consumer;
  /** Most work held at once (delivered and not yet released), in messages or in `weigh`'s units. */
  capacity: number;
  /**
   * How much of `capacity` a message takes (default 1: capacity counts messages). A pull asks for as
   * many messages as fit if each weighs as much as the heaviest yet (the first pull asks for one),
   * so what is held passes `capacity` only by a message asked for when less than its weight was
   * free, or when messages heavier than any before come; nothing more is asked for until the excess
   * is released.
   */
  weigh?: (msg: JsMsg) => number;
  /** Lifetime of one pull request, in ms (at least 1 000). */
  expiresMs: number;
  /** Called for every delivered message with its weight; the message holds that much until `release(weight)`. */
  onMessage(msg: JsMsg, weight: number): void;
  onError(error: unknown): void;
}

/** Pull requests open at once; a few let a busy consumer re-ask before the previous one is used up. */
const MAX_OPEN_PULLS = 4;
const PAUSE_AFTER_ERROR_MS = 1_000;
/** A pull that ends empty this fast was refused, not expired; pausing avoids a busy loop. */
const SUSPICIOUSLY_SHORT_PULL_MS = 100;
const PAUSE_AFTER_SHORT_PULL_MS = 250;
/**
 * Longest a free slot waits for others to free up when no pull is open: past it, the pump asks for
 * what is free, however little. Without it, slots beside long handlers would idle until one of them ended.
 */
const LONE_SLOT_WAIT_MS = 5;

/**
 * Keeps pull requests open for exactly as many messages as there are free slots, so no message
 * waits in a client buffer while its ack wait runs and other replicas sit idle (unlike `consume()`,
 * which re-asks as messages arrive, not as they are finished). Asks again once an eighth of the
 * slots are free (or all are), to spare the server one request per message; fewer free slots are
 * asked for after `LONE_SLOT_WAIT_MS` when no pull is open to fill them.
 */
export class PullPump {
  private held = 0;
  /** Capacity promised to open pulls: the messages they may still bring, at the weight each was asked at. */
  private requested = 0;
  private running = false;
  private pausedUntil = 0;
  private pauseTimer?: NodeJS.Timeout;
  private loneSlotTimer?: NodeJS.Timeout;
  private readonly open = new Set<ConsumerMessages>();
  private readonly pulls = new Set<Promise<void>>();
  private readonly refillAt: number;
  /**
   * The heaviest message yet (0 before the first), which the next ones are expected to weigh. It
   * never fades: an estimate that had faded through a run of light messages would ask for many, and
   * heavy ones would then fill them all (a scheduler sends a few tasks to a message after a small
   * intake, eight after a large one).
   */
  private heaviest = 0;

  constructor(private readonly options: PullPumpOptions) {
    this.refillAt = Math.max(1, Math.floor(options.capacity / 8));
  }

  /** What a message is expected to weigh: unknown before the first (with `weigh`), so the whole capacity and a pull of one. */
  private get expectedWeight(): number {
    return this.heaviest > 0 ? this.heaviest : this.options.weigh ? this.options.capacity : 1;
  }

  start(): void {
    this.running = true;
    this.refill();
  }

  /** Frees `count` of the capacity (messages settled, or their `weigh`t) and asks for more. */
  release(count = 1): void {
    this.held -= count;
    this.refill();
  }

  /** Closes the open pull requests; resolves once their last messages were handed to `onMessage`. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.pauseTimer);
    clearTimeout(this.loneSlotTimer);
    for (const messages of this.open) void messages.close().catch(() => undefined);
    await Promise.all(this.pulls);
  }

  private refill(evenFew = false): void {
    if (!this.running || Date.now() < this.pausedUntil || this.pulls.size >= MAX_OPEN_PULLS) return;
    const free = this.options.capacity - this.held - this.requested;
    if (free <= 0) return;
    if (!evenFew && free < this.refillAt && this.held + this.requested > 0) {
      // An open pull will deliver more and refill when it ends; with none open, nothing would.
      if (this.requested === 0) {
        this.loneSlotTimer ??= setTimeout(() => {
          this.loneSlotTimer = undefined;
          this.refill(true);
        }, LONE_SLOT_WAIT_MS);
      }
      return;
    }
    clearTimeout(this.loneSlotTimer);
    this.loneSlotTimer = undefined;
    const each = this.expectedWeight;
    const count = Math.max(1, Math.floor(free / each));
    this.requested += count * each;
    const pull = this.pull(count, each).finally(() => {
      this.pulls.delete(pull);
      this.refill();
    });
    this.pulls.add(pull);
  }

  private async pull(count: number, each: number): Promise<void> {
    const startedAt = Date.now();
    let delivered = 0;
    let messages: ConsumerMessages | undefined;
    try {
      messages = await this.options.consumer.fetch({ max_messages: count, expires: this.options.expiresMs });
      this.open.add(messages);
      if (!this.running) void messages.close().catch(() => undefined);
      for await (const msg of messages) {
        delivered++;
        this.requested -= each;
        const weight = weightOf(msg, this.options.weigh);
        this.heaviest = Math.max(this.heaviest, weight);
        this.held += weight;
        this.options.onMessage(msg, weight);
      }
      if (delivered === 0 && Date.now() - startedAt < SUSPICIOUSLY_SHORT_PULL_MS) this.pause(PAUSE_AFTER_SHORT_PULL_MS);
    } catch (error) {
      if (this.running) {
        this.options.onError(error);
        this.pause(PAUSE_AFTER_ERROR_MS);
      }
    } finally {
      if (messages) this.open.delete(messages);
      this.requested -= (count - delivered) * each;
    }
  }

  private pause(ms: number): void {
    if (!this.running) return;
    this.pausedUntil = Date.now() + ms;
    clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(() => {
      this.pausedUntil = 0;
      this.refill();
    }, ms);
  }
}

/** What `msg` takes of the capacity: `weigh`'s answer as a whole number of at least 1. */
function weightOf(msg: JsMsg, weigh: ((msg: JsMsg) => number) | undefined): number {
  if (!weigh) return 1;
  const weight = Math.floor(weigh(msg));
  return Number.isFinite(weight) && weight > 1 ? weight : 1;
}
