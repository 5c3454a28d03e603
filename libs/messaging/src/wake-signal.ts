/**
 * Lets a polling loop sleep until its next poll or until told there is work, whichever comes
 * first. A wake that comes while the loop is busy is kept: the round under way may have read the
 * state before the news, so the next wait returns at once instead of a poll later.
 */
export class WakeSignal {
  private pending = false;
  private interrupt?: () => void;

  /** Called at the start of a round: what was announced so far, that round will see. */
  clear(): void {
    this.pending = false;
  }

  /** There is work (or the loop must stop): ends the current wait, or the next one at once. */
  wake(): void {
    this.pending = true;
    this.interrupt?.();
  }

  /** Waits `ms`, less if woken since the last `clear()`. */
  async wait(ms: number): Promise<void> {
    if (this.pending) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.interrupt = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.interrupt = undefined;
  }
}
