import { decodeListCursor, decodeResultsCursor, encodeListCursor, encodeResultsCursor, isCrawlId } from './crawl-cursor';

const CRAWL = '0b7c3c52-3f0e-4f55-9d9e-4c1b2f6f1a10';

describe('crawl cursors', () => {
  describe(encodeResultsCursor.name, () => {
    it('round-trips the crawl id and seq through an opaque url-safe token', () => {
      const token = encodeResultsCursor({ crawlId: CRAWL, seq: 1234 });
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(token).not.toContain(CRAWL);
      expect(decodeResultsCursor(token)).toEqual({ crawlId: CRAWL, seq: 1234 });
    });

    it('round-trips seq 0 (nothing read yet)', () => {
      expect(decodeResultsCursor(encodeResultsCursor({ crawlId: CRAWL, seq: 0 }))).toEqual({ crawlId: CRAWL, seq: 0 });
    });
  });

  describe(decodeResultsCursor.name, () => {
    const encode = (data: unknown) => Buffer.from(JSON.stringify(data)).toString('base64url');

    it.each([
      ['empty', ''],
      ['not base64url', 'abc$%^'],
      ['not JSON', Buffer.from('hello').toString('base64url')],
      ['a JSON array', encode([1, 2])],
      ['a list cursor', encodeListCursor({ createdAtMicros: '1700000000000000', crawlId: CRAWL })],
      ['a negative seq', encode({ k: 'r', c: CRAWL, s: -1 })],
      ['a fractional seq', encode({ k: 'r', c: CRAWL, s: 1.5 })],
      ['a seq beyond a Postgres integer', encode({ k: 'r', c: CRAWL, s: 2 ** 31 })],
      ['a crawl id that is no uuid', encode({ k: 'r', c: 'nope', s: 1 })],
      ['a huge token', 'A'.repeat(300)],
    ])('returns undefined for %s', (_what, token) => {
      expect(decodeResultsCursor(token)).toBeUndefined();
    });
  });

  describe(decodeListCursor.name, () => {
    it('round-trips the microsecond timestamp and id', () => {
      const cursor = { createdAtMicros: '1763798400123456', crawlId: CRAWL };
      expect(decodeListCursor(encodeListCursor(cursor))).toEqual(cursor);
    });

    it('refuses a results cursor and a timestamp that is not digits', () => {
      expect(decodeListCursor(encodeResultsCursor({ crawlId: CRAWL, seq: 3 }))).toBeUndefined();
      const bad = Buffer.from(JSON.stringify({ k: 'l', t: '1e9', c: CRAWL })).toString('base64url');
      expect(decodeListCursor(bad)).toBeUndefined();
    });
  });

  describe(isCrawlId.name, () => {
    it('accepts lowercase uuids only', () => {
      expect(isCrawlId(CRAWL)).toBe(true);
      expect(isCrawlId(CRAWL.toUpperCase())).toBe(false);
      expect(isCrawlId('1')).toBe(false);
      expect(isCrawlId(`${CRAWL}x`)).toBe(false);
    });
  });
});
