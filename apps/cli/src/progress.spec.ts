import { duration, formatPreparationProgress, formatProgress, formatRunProgress, Terminal, type CrawlProgress } from './progress';

const T0 = 1_700_000_000_000;

function crawl(overrides: Partial<CrawlProgress> = {}): CrawlProgress {
  return { status: 'running', pagesFetched: 1234, pagesFailed: 3, itemsFound: 1200, startedAt: T0, pagesAtStart: 0, ...overrides };
}

class FakeStream {
  written = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 200,
  ) {}
  write(text: string): boolean {
    this.written += text;
    return true;
  }
}

describe('formatProgress', () => {
  it('shows status, pages fetched, items, failures, rate and elapsed time', () => {
    expect(formatProgress(crawl(), T0 + 3_000)).toBe('running | 1,234 pages fetched | 1,200 items | 3 failed | 411 pages/s | 0:03 elapsed');
  });

  it('counts the rate from the pages fetched since following began', () => {
    expect(formatProgress(crawl({ pagesFetched: 150, pagesAtStart: 100 }), T0 + 10_000)).toContain('| 5.0 pages/s |');
  });

  it('shows a zero rate at the start instead of dividing by zero', () => {
    expect(formatProgress(crawl({ pagesFetched: 0, itemsFound: 0, pagesFailed: 0 }), T0)).toBe(
      'running | 0 pages fetched | 0 items | 0 failed | 0.0 pages/s | 0:00 elapsed',
    );
  });

  it('stops the clock when the crawl has ended', () => {
    const ended = crawl({ status: 'completed', endedAt: T0 + 65_000 });
    expect(formatProgress(ended, T0 + 999_000)).toMatch(/^completed \| .* \| 1:05 elapsed$/);
  });

  it('never shows a negative elapsed time when the clock went back', () => {
    expect(formatProgress(crawl(), T0 - 5_000)).toContain('0:00 elapsed');
  });
});

describe('formatRunProgress', () => {
  it('shows tasks done of the total, failures, rate and elapsed time', () => {
    const line = formatRunProgress(
      { status: 'running', total: 100, completed: 40, failed: 2, startedAt: T0, completedAtStart: 0 },
      T0 + 4_000,
    );
    expect(line).toBe('running | 40/100 tasks done | 2 failed | 10 tasks/s | 0:04 elapsed');
  });
});

describe('formatPreparationProgress', () => {
  it('shows pages fetched and analysed', () => {
    expect(formatPreparationProgress({ status: 'preparing', pagesFetched: 12, pagesAnalysed: 8, startedAt: T0 }, T0 + 30_000)).toBe(
      'preparing | 12 pages fetched | 8 analysed | 0:30 elapsed',
    );
  });
});

describe('duration', () => {
  it('writes minutes and seconds, and hours from an hour on', () => {
    expect([duration(0), duration(59.9), duration(61), duration(3_600), duration(3_725)]).toEqual([
      '0:00',
      '0:59',
      '1:01',
      '1:00:00',
      '1:02:05',
    ]);
  });
});

describe(Terminal.name, () => {
  describe('progress', () => {
    it('redraws the line in place with a carriage return and clear-line on a terminal', () => {
      const stream = new FakeStream(true);
      let now = T0;
      const line = new Terminal(stream, () => now).progress(formatProgress);
      line.update(crawl({ pagesFetched: 1 }));
      now += 1_000;
      line.update(crawl({ pagesFetched: 2 }));
      line.finish();
      expect(
        stream.written
          .split('\r\x1b[2K')
          .filter(Boolean)
          .map((drawn) => drawn.split(' | ')[1]),
      ).toEqual(['1 pages fetched', '2 pages fetched', '2 pages fetched']);
      // The last state stays on screen, and what follows starts on a line of its own.
      expect(stream.written.endsWith(' elapsed\n')).toBe(true);
    });

    it('writes nothing when stderr is not a terminal', () => {
      const stream = new FakeStream(false);
      const line = new Terminal(stream, () => T0).progress(formatProgress);
      line.update(crawl());
      line.finish();
      expect(stream.written).toBe('');
    });

    it('draws nothing when asked not to be shown, even on a terminal', () => {
      const stream = new FakeStream(true);
      const line = new Terminal(stream, () => T0).progress(formatProgress, false);
      line.update(crawl());
      line.finish();
      expect(stream.written).toBe('');
    });

    it('keeps only the latest state of updates closer than 100 ms', () => {
      const stream = new FakeStream(true);
      const line = new Terminal(stream, () => T0 + 1_000).progress(formatProgress);
      line.update(crawl({ pagesFetched: 1 }));
      line.update(crawl({ pagesFetched: 2 }));
      expect(stream.written).not.toContain('2 pages fetched');
      line.finish();
      expect(stream.written).toMatch(/2 pages fetched.*\n$/);
    });

    it('cuts the line to the terminal width, so that it does not wrap', () => {
      const stream = new FakeStream(true, 40);
      const line = new Terminal(stream, () => T0).progress(formatProgress);
      line.update(crawl());
      const drawn = stream.written.replace('\r\x1b[2K', '');
      expect(drawn).toHaveLength(39);
      expect(drawn.endsWith('…')).toBe(true);
      line.finish();
    });
  });

  describe('note', () => {
    it('clears the progress line, writes the note, and draws the line again', () => {
      const stream = new FakeStream(true);
      const terminal = new Terminal(stream, () => T0);
      const line = terminal.progress(formatProgress);
      line.update(crawl());
      stream.written = '';
      terminal.note('trawl: retry 1 of GET /v1/crawls/x in 0.5 s (429)');
      expect(stream.written).toMatch(/^\r\x1b\[2Ktrawl: retry 1 .*\n\r\x1b\[2Krunning \| 1,234 pages fetched/);
      line.finish();
    });

    it('writes notes whether or not stderr is a terminal', () => {
      const stream = new FakeStream(false);
      new Terminal(stream).note('trawl: hello');
      expect(stream.written).toBe('trawl: hello\n');
    });
  });
});
