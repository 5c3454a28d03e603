import { STOPPED_RUN_MEMORY_MS, StoppedRuns } from './stopped-runs';

describe(StoppedRuns.name, () => {
  const registry = () => new StoppedRuns({} as never, 'subject', { warn: () => undefined } as never);

  it('remembers an ended run for longer than a claim lease, then forgets it', () => {
    const stopped = registry();
    stopped.remember('r1', 1_000);
    expect(stopped.isStopped('r1', 1_000 + 10 * 60_000)).toBe(true);
    expect(stopped.isStopped('r1', 1_001 + STOPPED_RUN_MEMORY_MS)).toBe(false);
    expect(stopped.isStopped('r2', 1_000)).toBe(false);
  });
});
