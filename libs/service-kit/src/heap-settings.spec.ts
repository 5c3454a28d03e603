import { applyHeapSettings } from './heap-settings';

describe('applyHeapSettings', () => {
  const flagsSet = (settings: Parameters<typeof applyHeapSettings>[0]): string[] => {
    const flags: string[] = [];
    applyHeapSettings(settings, (flag) => flags.push(flag));
    return flags;
  };

  it('fixes the heap growth and turns allocation-site pretenuring off by default settings', () => {
    expect(flagsSet({ HEAP_GROWTH_PERCENT: 50, ALLOCATION_SITE_PRETENURING: false })).toEqual([
      '--heap-growing-percent=50',
      '--no-allocation-site-pretenuring',
    ]);
  });

  it('leaves both to V8 when asked: growth 0, pretenuring on', () => {
    expect(flagsSet({ HEAP_GROWTH_PERCENT: 0, ALLOCATION_SITE_PRETENURING: true })).toEqual([]);
  });
});
