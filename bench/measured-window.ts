/**
 * The time a closed-loop load is measured: a warm-up of `warmupSeconds` and `warmupAnswers`
 * answers, whichever ends last, then `seconds`. Each loop asks {@link open} before a request and
 * calls {@link counts} after its answer.
 */
export class MeasuredWindow {
  private readonly warmupEnds: number;
  // Set when the warm-up ends.
  private ends = Number.POSITIVE_INFINITY;
  private answers = 0;
  private measuredFrom = 0;

  constructor(
    private readonly options: {
      seconds: number;
      warmupSeconds: number;
      /** Answers (of every loop together) the warm-up waits for besides its seconds; default 0. */
      warmupAnswers?: number;
      /** Called once, when the warm-up ends and measuring starts (to start CPU meters). */
      onMeasuring?: () => void;
    },
  ) {
    this.warmupEnds = Date.now() + options.warmupSeconds * 1000;
  }

  /** Whether a loop should send another request. */
  get open(): boolean {
    return Date.now() < this.ends;
  }

  /** Notes one answer; true when it is measured (the warm-up may end with it). */
  counts(): boolean {
    this.answers += 1;
    if (this.measuredFrom === 0 && Date.now() >= this.warmupEnds && this.answers >= (this.options.warmupAnswers ?? 0)) {
      this.measuredFrom = Date.now();
      this.ends = this.measuredFrom + this.options.seconds * 1000;
      this.options.onMeasuring?.();
    }
    return this.measuredFrom !== 0;
  }

  /** Seconds measured so far. */
  get seconds(): number {
    return (Date.now() - this.measuredFrom) / 1000;
  }
}
