import { WEBHOOK_CHANGED_PAGES_LIMIT, webhookRunChangesV1 } from '@trawl/contracts';
import { CHANGED_PAGES_BYTES, type ChangedPage, runChanges } from './run-changes';

const page = (seq: number, fields: Partial<ChangedPage> = {}): ChangedPage => ({
  seq,
  url: `https://changing.test/p/${seq}`,
  externalId: null,
  changeStatus: 'changed',
  ...fields,
});

describe(runChanges.name, () => {
  it('says nothing of a run that tracked no page', () => {
    expect(runChanges(new Map(), [])).toBeUndefined();
  });

  it('counts every verdict and names the pages that changed or went', () => {
    const changes = runChanges(
      new Map([
        ['same', 5],
        ['changed', 1],
        ['removed', 1],
      ]),
      [page(2, { externalId: 'sku-2' }), page(7, { changeStatus: 'removed' })],
    );
    expect(changes).toEqual({
      new: 0,
      same: 5,
      changed: 1,
      removed: 1,
      pages: [
        { task_id: '2', url: 'https://changing.test/p/2', external_id: 'sku-2', change_status: 'changed' },
        { task_id: '7', url: 'https://changing.test/p/7', external_id: null, change_status: 'removed' },
      ],
      pages_truncated: false,
    });
    expect(webhookRunChangesV1.parse(changes)).toEqual(changes);
  });

  it('lists at most the limit, and says the list was cut', () => {
    const many = Array.from({ length: WEBHOOK_CHANGED_PAGES_LIMIT + 1 }, (_, i) => page(i + 1));
    const changes = runChanges(new Map([['changed', 500]]), many)!;
    expect(changes.pages).toHaveLength(WEBHOOK_CHANGED_PAGES_LIMIT);
    expect(changes.pages_truncated).toBe(true);
    expect(changes.changed).toBe(500);
  });

  it('stops listing before long URLs outgrow one message', () => {
    const long = Array.from({ length: 60 }, (_, i) => page(i + 1, { url: `https://changing.test/${'x'.repeat(8_000)}/${i}` }));
    const changes = runChanges(new Map([['changed', 60]]), long)!;
    const bytes = changes.pages.reduce((sum, listed) => sum + listed.url.length, 0);
    expect(bytes).toBeLessThanOrEqual(CHANGED_PAGES_BYTES);
    expect(changes.pages.length).toBe(Math.floor(CHANGED_PAGES_BYTES / long[0]!.url.length));
    expect(changes.pages_truncated).toBe(true);
  });
});
