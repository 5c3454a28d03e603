import { Tier } from '@trawl/billing';
import type { TargetPage } from '../target-fetch/fetch-engine';
import { answersJsonObject, versionOf, withChangeTracking } from './change-answers';
import type { PageTransforms } from './page-transforms';

const transforms = { toMarkdown: (html: string) => `md:${html.length}` } as unknown as PageTransforms;
const page = (over: Partial<TargetPage>): TargetPage => ({
  tier: Tier.Basic,
  status: 200,
  finalUrl: 'https://shop.example/a',
  headers: {},
  contentType: 'text/html',
  body: Buffer.from('<p>hi</p>'),
  ...over,
});
const json = (value: unknown) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) });

describe(versionOf.name, () => {
  it('compares an HTML page by its Markdown text, extracted fields as indented JSON, other bodies by digest', () => {
    expect(versionOf(page({}), undefined, false, transforms)).toEqual({ kind: 'text', content: 'md:9' });
    const fields = versionOf(page({}), json({ parsed: { price: '3' }, html: '<p>hi</p>' }), true, transforms);
    expect(fields).toEqual({ kind: 'fields', content: '{\n  "price": "3"\n}' });
    const pdf = versionOf(page({ contentType: 'application/pdf', body: Buffer.from('%PDF') }), undefined, false, transforms);
    expect(pdf.kind).toBe('digest');
    expect(pdf.content).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes a 404 or 410 as the page being gone', () => {
    expect(versionOf(page({ status: 404 }), undefined, false, transforms)).toEqual({ kind: 'removed', content: '' });
    expect(versionOf(page({ status: 410 }), undefined, false, transforms).kind).toBe('removed');
  });
});

describe(withChangeTracking.name, () => {
  it('adds the verdict, the previous time and the diff to our JSON answers only', () => {
    const answer = withChangeTracking(json({ html: 'x' }), {
      status: 'changed',
      previousFetchedAt: Date.UTC(2026, 10, 1),
      diff: '-a\n+b\n',
    });
    expect(JSON.parse(answer.body.toString())).toEqual({
      html: 'x',
      change_tracking: { status: 'changed', previous_fetched_at: '2026-11-01T00:00:00.000Z', diff: '-a\n+b\n' },
    });
    const base = { js_render: false, premium_proxy: false, json_response: false, original_status: false };
    expect(answersJsonObject(base, false)).toBe(false);
    expect(answersJsonObject({ ...base, json_response: true }, false)).toBe(true);
    expect(answersJsonObject({ ...base, outputs: ['emails'] }, false)).toBe(true);
    expect(answersJsonObject(base, true)).toBe(true);
  });
});
