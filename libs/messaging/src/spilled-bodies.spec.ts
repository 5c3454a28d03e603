import { groupsWithinBytes } from './spilled-bodies';

describe(groupsWithinBytes.name, () => {
  it('cuts items into consecutive groups within the bytes, a large item alone, free items anywhere', () => {
    const sizes = [0, 40, 30, 0, 50, 250, 10, 0];
    expect(groupsWithinBytes(sizes, (n) => n, 100)).toEqual([[0, 40, 30, 0], [50], [250], [10, 0]]);
  });

  it('keeps everything together when nothing is spilled, and gives no group for no item', () => {
    expect(groupsWithinBytes([0, 0, 0], (n) => n, 100)).toEqual([[0, 0, 0]]);
    expect(groupsWithinBytes([], (n: number) => n, 100)).toEqual([]);
  });
});
