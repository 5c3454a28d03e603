import { compareVersions, type PageVersion } from './version-diff';

const text = (content: string): PageVersion => ({ kind: 'text', content });
const REMOVED: PageVersion = { kind: 'removed', content: '' };

describe(compareVersions.name, () => {
  it('says new for a first version and after a page that was gone', () => {
    expect(compareVersions(undefined, text('a'))).toEqual({ status: 'new' });
    expect(compareVersions(REMOVED, text('a'))).toEqual({ status: 'new' });
  });

  it('says same for the same content, and changed with a unified diff of the lines for another', () => {
    expect(compareVersions(text('# T\n\nOne.\n'), text('# T\n\nOne.\n'))).toEqual({ status: 'same' });
    const { status, diff } = compareVersions(text('# T\n\nOne.\n\nTwo.'), text('# T\n\nOne.\n\nThree.'));
    expect(status).toBe('changed');
    expect(diff).toContain('--- previous');
    expect(diff).toContain('+++ current');
    expect(diff).toContain('-Two.');
    expect(diff).toContain('+Three.');
    expect(diff).toContain(' One.');
  });

  it('says removed once when a page goes, then same while it stays gone', () => {
    expect(compareVersions(text('a'), REMOVED)).toEqual({ status: 'removed' });
    expect(compareVersions(REMOVED, REMOVED)).toEqual({ status: 'same' });
    expect(compareVersions(undefined, REMOVED)).toEqual({ status: 'same' });
  });

  it('says changed without a diff when a body is compared by digest', () => {
    expect(compareVersions({ kind: 'digest', content: 'aa' }, { kind: 'digest', content: 'bb' })).toEqual({ status: 'changed' });
    expect(compareVersions({ kind: 'digest', content: 'aa' }, { kind: 'digest', content: 'aa' })).toEqual({ status: 'same' });
  });

  it('diffs extracted fields line by line, naming the field that changed', () => {
    const before: PageVersion = { kind: 'fields', content: JSON.stringify({ title: 'Tea', price: '3 EUR' }, null, 2) };
    const after: PageVersion = { kind: 'fields', content: JSON.stringify({ title: 'Tea', price: '4 EUR' }, null, 2) };
    const { diff } = compareVersions(before, after);
    expect(diff).toContain('-  "price": "3 EUR"');
    expect(diff).toContain('+  "price": "4 EUR"');
    expect(diff).not.toContain('-  "title"');
  });

  it('answers a page that changed in more lines than it searches as replaced whole, saying so', () => {
    const lines = (n: number, changed: number) => Array.from({ length: 1_200 }, (_, i) => `line ${i} ${i < changed ? n : 0}`);
    const { status, diff } = compareVersions(text(lines(1, 1_200).join('\n')), text(lines(2, 1_200).join('\n')));
    expect(status).toBe('changed');
    const body = diff!.split('\n');
    expect(body).toContain('@@ -1,1200 +1,1200 @@');
    expect(body.filter((line) => line.startsWith('-line '))).toEqual(lines(1, 1_200).map((line) => `-${line}`));
    expect(body.filter((line) => line.startsWith('+line '))).toEqual(lines(2, 1_200).map((line) => `+${line}`));
    expect(diff).toContain('shown as replaced whole');
    // Fewer changed lines are still diffed line by line, with context.
    const some = compareVersions(text(lines(1, 400).join('\n')), text(lines(2, 400).join('\n'))).diff!;
    expect(some).not.toContain('replaced whole');
    expect(some).toContain(' line 400 0');
    expect(some).not.toContain('-line 450 0');
  });

  it('cuts a huge diff with a note', () => {
    const big = (n: number) => text(Array.from({ length: 20_000 }, (_, i) => `line ${i} ${n}`).join('\n'));
    const { diff } = compareVersions(big(1), big(2));
    expect(diff!.length).toBeLessThan(300 * 1024);
    expect(diff).toContain('diff cut at');
  });
});
