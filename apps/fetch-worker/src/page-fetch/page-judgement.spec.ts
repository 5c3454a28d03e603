import { Tier } from '@trawl/billing';
import { bodyWanted, judgePage, type LoadedPage } from './page-judgement';

const page = (overrides: Partial<LoadedPage> = {}): LoadedPage => ({
  status: 200,
  finalUrl: 'https://example.com/a',
  contentType: 'text/html; charset=utf-8',
  body: Buffer.from('<p>x</p>'),
  ...overrides,
});

describe('page judgement', () => {
  describe(judgePage.name, () => {
    it('judges a 200 HTML page fetched, billed at its tier, with its HTML decoded by its charset', () => {
      const body = Buffer.from('<meta charset="windows-1252"><p>caf\xe9</p>', 'latin1');
      expect(judgePage(page({ body, contentType: 'text/html' }), Tier.Basic, 'html')).toEqual({
        outcome: 'fetched',
        tier: Tier.Basic,
        credits: 1,
        statusCode: 200,
        finalUrl: 'https://example.com/a',
        contentType: 'text/html',
        html: '<meta charset="windows-1252"><p>café</p>',
      });
      expect(judgePage(page(), Tier.Premium, 'html').credits).toBe(10);
    });

    it('keeps the DOM a browser rendered instead of decoding the body', () => {
      expect(judgePage(page({ html: '<p>rendered</p>' }), Tier.JsRender, 'html')).toMatchObject({ html: '<p>rendered</p>', credits: 5 });
    });

    it('takes an untyped body for HTML only when it looks like HTML', () => {
      const untyped = { contentType: undefined };
      expect(judgePage(page({ ...untyped, body: Buffer.from('<!doctype html><a href="/x">x</a>') }), Tier.Basic, 'html').html).toContain(
        '<a href',
      );
      expect(judgePage(page({ ...untyped, body: Buffer.from('just text') }), Tier.Basic, 'html').html).toBeUndefined();
    });

    it('gives the body only when any body was asked for, and nothing when none was', () => {
      const json = page({ contentType: 'application/json', body: Buffer.from('{"a":1}') });
      expect(judgePage(json, Tier.Basic, 'any').body?.toString()).toBe('{"a":1}');
      expect(judgePage(json, Tier.Basic, 'any').html).toBeUndefined();
      expect(judgePage(page(), Tier.Basic, 'none')).not.toHaveProperty('html');
    });

    it('judges 404 and 410 failed but billed, without HTML (Crawl spec §8 rule 2)', () => {
      for (const status of [404, 410]) {
        const judged = judgePage(page({ status }), Tier.Basic, 'html');
        expect(judged).toMatchObject({ outcome: 'failed_billed', credits: 1, statusCode: status, error: `http_${status}` });
        expect(judged.html).toBeUndefined();
      }
    });

    it('judges a 503 failed and free', () => {
      expect(judgePage(page({ status: 503 }), Tier.Basic, 'html')).toMatchObject({ outcome: 'failed', credits: 0, error: 'http_503' });
    });
  });

  describe(bodyWanted.name, () => {
    it('wants HTML and untyped bodies for a crawl, and skips the rest', () => {
      const wanted = bodyWanted('html');
      expect(wanted('text/html; charset=utf-8')).toBe(true);
      expect(wanted('application/xhtml+xml')).toBe(true);
      expect(wanted(undefined)).toBe(true);
      expect(wanted('application/pdf')).toBe(false);
      expect(wanted('image/png')).toBe(false);
    });

    it('wants every body for `any` and none for `none`', () => {
      expect(bodyWanted('any')('application/pdf')).toBe(true);
      expect(bodyWanted('none')('text/html')).toBe(false);
    });
  });
});
