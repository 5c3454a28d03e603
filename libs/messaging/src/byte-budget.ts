import { MessagingError, MessagingErrorCode } from './messaging.errors';

/**
 * A count of bytes that may be held at once (bodies being spilled, say), shared by every caller in
 * one process. `acquire` waits, first come first served, until the bytes fit; a claim larger than
 * the whole budget is let through once nothing else holds any, so it waits but never forever.
 */
export class ByteBudget {
  private held = 0;
  private readonly waiting: { bytes: number; admit: () => void }[] = [];

  /** @param limitBytes most bytes held at once (≥ 1). */
  constructor(readonly limitBytes: number) {
    if (!Number.isInteger(limitBytes) || limitBytes < 1) {
      throw new MessagingError(MessagingErrorCode.InvalidOption, `A byte budget must be a positive integer, got ${limitBytes}`);
    }
  }

  /** Bytes held now. */
  get heldBytes(): number {
    return this.held;
  }

  /**
   * Waits until `bytes` fit, takes them and resolves with the function that gives them back (safe
   * to call twice). Callers must call it in a `finally`.
   */
  async acquire(bytes: number): Promise<() => void> {
    const claim = Math.max(0, bytes);
    if (this.waiting.length > 0 || !this.fits(claim)) {
      await new Promise<void>((admit) => this.waiting.push({ bytes: claim, admit }));
    } else {
      this.held += claim;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= claim;
      this.admitWaiting();
    };
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.limitBytes;
  }

  /** In order: a large claim at the head is not overtaken by small ones forever. */
  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].bytes)) {
      const next = this.waiting.shift()!;
      this.held += next.bytes;
      next.admit();
    }
  }
}
