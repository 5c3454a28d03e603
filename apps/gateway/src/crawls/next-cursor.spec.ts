import { nextResultsSeq } from './next-cursor';

describe(nextResultsSeq.name, () => {
  it.each([
    // running, inFlight, reachedEnd, lastSeq → expected
    [true, false, true, 7, 7],
    [true, false, false, 7, 7],
    [false, true, true, 7, 7],
    [false, false, false, 7, 7],
    [false, false, true, 7, null],
    [true, false, true, 0, 0],
  ] as const)('running=%s inFlight=%s reachedEnd=%s lastSeq=%s gives %s', (running, pagesInFlight, reachedEnd, lastSeq, expected) => {
    expect(nextResultsSeq({ running, pagesInFlight, reachedEnd, lastSeq })).toBe(expected);
  });
});
