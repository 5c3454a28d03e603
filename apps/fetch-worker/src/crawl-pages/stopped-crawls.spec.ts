import { STOPPED_CRAWL_MEMORY_MS, StoppedCrawls } from './stopped-crawls';

describe(StoppedCrawls.name, () => {
  const registry = () => new StoppedCrawls({} as never, 'subject', { warn: () => undefined } as never);

  it('remembers a stopped crawl for longer than the post-stop window, then forgets it', () => {
    const stopped = registry();
    stopped.remember('c1', 1_000);
    expect(stopped.isStopped('c1', 1_000 + 10 * 60_000)).toBe(true);
    expect(stopped.isStopped('c1', 1_001 + STOPPED_CRAWL_MEMORY_MS)).toBe(false);
    expect(stopped.isStopped('c2', 1_000)).toBe(false);
  });
});
