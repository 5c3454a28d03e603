/** Where progress and notes go: stderr, which draws a live line only when it is a terminal. */
export interface TerminalStream {
  write(text: string): boolean;
  /** True when the stream is a terminal (`process.stderr.isTTY`). */
  isTTY?: boolean;
  /** Width of the terminal in characters, when known. */
  columns?: number;
}

/** A crawl's counts as last read, and when this CLI began following it. */
export interface CrawlProgress {
  /** The crawl's status: `running`, `completed`, `stopped`, `failed`. */
  status: string;
  pagesFetched: number;
  pagesFailed: number;
  itemsFound: number;
  /** When following began, in ms since the epoch (local clock: the server's may differ). */
  startedAt: number;
  /** Pages fetched when following began, so that the rate counts only what happened since. */
  pagesAtStart: number;
  /** When the crawl was seen ended; elapsed time and rate stop there. */
  endedAt?: number;
}

/** A batch run's counts as last read. */
export interface RunProgress {
  /** The run's status: `queued`, `running`, `paused`, `completed`, … */
  status: string;
  total: number;
  /** Tasks finished, successful or failed. */
  completed: number;
  failed: number;
  /** When watching began, in ms since the epoch. */
  startedAt: number;
  completedAtStart: number;
  endedAt?: number;
}

/** A domain preparation's counts as last read. */
export interface PreparationProgress {
  /** `queued`, `preparing`, `ready`, `failed`. */
  status: string;
  pagesFetched: number;
  pagesAnalysed: number;
  startedAt: number;
  endedAt?: number;
}

/**
 * The progress line of a followed crawl:
 * `running | 1,234 pages fetched | 1,200 items | 3 failed | 412 pages/s | 0:03 elapsed`.
 * The rate is the average since following began.
 */
export function formatProgress(state: CrawlProgress, now: number): string {
  const seconds = elapsedSeconds(state.startedAt, state.endedAt ?? now);
  return [
    state.status,
    `${count(state.pagesFetched)} pages fetched`,
    `${count(state.itemsFound)} items`,
    `${count(state.pagesFailed)} failed`,
    `${rate(state.pagesFetched - state.pagesAtStart, seconds)} pages/s`,
    `${duration(seconds)} elapsed`,
  ].join(' | ');
}

/** The progress line of a watched run: `running | 40/100 tasks done | 2 failed | 12.5 tasks/s | 0:05 elapsed`. */
export function formatRunProgress(state: RunProgress, now: number): string {
  const seconds = elapsedSeconds(state.startedAt, state.endedAt ?? now);
  return [
    state.status,
    `${count(state.completed)}/${count(state.total)} tasks done`,
    `${count(state.failed)} failed`,
    `${rate(state.completed - state.completedAtStart, seconds)} tasks/s`,
    `${duration(seconds)} elapsed`,
  ].join(' | ');
}

/** The progress line of a domain preparation: `preparing | 12 pages fetched | 8 analysed | 0:30 elapsed`. */
export function formatPreparationProgress(state: PreparationProgress, now: number): string {
  const seconds = elapsedSeconds(state.startedAt, state.endedAt ?? now);
  return [
    state.status,
    `${count(state.pagesFetched)} pages fetched`,
    `${count(state.pagesAnalysed)} analysed`,
    `${duration(seconds)} elapsed`,
  ].join(' | ');
}

function elapsedSeconds(from: number, to: number): number {
  return Math.max(0, (to - from) / 1000);
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** Per second: one decimal below 10, whole numbers above (a jumping tenth is noise there). */
function rate(amount: number, seconds: number): string {
  if (seconds <= 0 || amount <= 0) return '0.0';
  const perSecond = amount / seconds;
  return perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond).toLocaleString('en-US');
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function duration(seconds: number): string {
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// Carriage return, then ANSI "erase entire line" (CSI 2 K).
const CLEAR_LINE = '\r\x1b[2K';
/** Redraws closer together than this only keep the latest state: a terminal is not a log. */
const MIN_REDRAW_MS = 100;
/** Redraw at least this often, so that elapsed time moves while nothing else does. */
const TICK_MS = 500;

/**
 * stderr as the CLI uses it: notes (retries, hints) as whole lines, and at most one live progress
 * line, redrawn in place with `\r` and clear-line when stderr is a terminal and never written
 * otherwise (a log file or a pipe gets no progress, only notes and errors).
 */
export class Terminal {
  private line: Pick<ProgressLine<unknown>, 'clear' | 'redraw' | 'finish'> | undefined;

  constructor(
    readonly stream: TerminalStream,
    readonly clock: () => number = Date.now,
  ) {}

  /** Whether a live progress line is drawn (stderr is a terminal). */
  get interactive(): boolean {
    return this.stream.isTTY === true;
  }

  /** Writes one line; a progress line being drawn is cleared first and drawn again after it. */
  note(message: string): void {
    const line = this.line;
    line?.clear();
    this.stream.write(`${message}\n`);
    line?.redraw();
  }

  /**
   * A live progress line drawn with `format`; `finish` it when the work ends. `shown: false` draws
   * nothing (results written to the same terminal would land in the middle of the line).
   */
  progress<T>(format: (state: T, now: number) => string, shown = true): ProgressLine<T> {
    this.line?.finish();
    const line: ProgressLine<T> = new ProgressLine<T>(this, format, shown && this.interactive, () => {
      if (this.line === line) this.line = undefined;
    });
    this.line = line;
    return line;
  }
}

/** One live line on a terminal; see {@link Terminal.progress}. Writes nothing when stderr is not a terminal. */
class ProgressLine<T> {
  private state: T | undefined;
  private drawn = false;
  private lastDrawAt = 0;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly terminal: Terminal,
    private readonly format: (state: T, now: number) => string,
    /** Whether the line is drawn at all. */
    private readonly drawing: boolean,
    private readonly onFinish: () => void,
  ) {}

  /** Shows `state` (at most every 100 ms; the latest state is always the one drawn next). */
  update(state: T): void {
    this.state = state;
    if (!this.drawing) return;
    if (this.ticker === undefined) {
      this.ticker = setInterval(() => this.redraw(), TICK_MS);
      // A forgotten line must not keep the process alive.
      this.ticker.unref();
    }
    if (this.terminal.clock() - this.lastDrawAt >= MIN_REDRAW_MS) this.redraw();
  }

  /** Draws the line again with the current time (elapsed moves on). */
  redraw(): void {
    if (!this.drawing || this.state === undefined) return;
    const now = this.terminal.clock();
    const width = Math.max(20, (this.terminal.stream.columns ?? 80) - 1);
    // Longer than the terminal is wide, the line would wrap and `\r` would redraw only its tail.
    this.terminal.stream.write(CLEAR_LINE + truncate(this.format(this.state, now), width));
    this.drawn = true;
    this.lastDrawAt = now;
  }

  /** Erases the line (before a note is written over it). */
  clear(): void {
    if (this.drawn) this.terminal.stream.write(CLEAR_LINE);
    this.drawn = false;
  }

  /** Draws the last state a final time and leaves it on screen. Safe to call twice. */
  finish(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.drawing && this.state !== undefined) {
      this.redraw();
      this.terminal.stream.write('\n');
      this.state = undefined;
    }
    this.drawn = false;
    this.onFinish();
  }
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
