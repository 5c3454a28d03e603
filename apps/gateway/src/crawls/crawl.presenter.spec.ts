import { crawlDownloadLine, crawlResultResource } from '@trawl/contracts/http';
import { presentDownloadLine, presentResult } from './crawl.presenter';
import type { DownloadRecord } from './crawls.repository';

const record = (fields: Partial<DownloadRecord> = {}): DownloadRecord => ({
  frontierId: '7',
  url: 'https://shop.test/p/7',
  seq: 3,
  contentStatus: 'fetched',
  cache: null,
  html: '<p>seven</p>',
  ...fields,
});

describe('crawl results', () => {
  describe(presentResult.name, () => {
    it('says a page came from a kept copy, with or without content', () => {
      const withContent = presentResult({ id: 'c1', outputFormat: 'html' }, record({ cache: 'hit' }));
      expect(crawlResultResource.parse(withContent)).toEqual({
        url: 'https://shop.test/p/7',
        content_status: 'fetched',
        content_url: '/v1/crawls/c1/contents/7',
        cache: 'hit',
      });
      expect(presentResult({ id: 'c1', outputFormat: null }, record({ cache: 'miss' }))).toEqual({
        url: 'https://shop.test/p/7',
        cache: 'miss',
      });
    });

    it('says nothing of copies for a crawl without max_age', () => {
      expect(presentResult({ id: 'c1', outputFormat: 'html' }, record())).not.toHaveProperty('cache');
      expect(presentResult({ id: 'c1', outputFormat: null }, record())).toEqual({ url: 'https://shop.test/p/7' });
    });
  });

  describe(presentDownloadLine.name, () => {
    it('marks the line of a page served from a copy', () => {
      const line = JSON.parse(presentDownloadLine({ outputFormat: 'html' }, record({ cache: 'hit' })));
      expect(crawlDownloadLine.parse(line)).toEqual({
        url: 'https://shop.test/p/7',
        content_status: 'fetched',
        content: '<p>seven</p>',
        cache: 'hit',
      });
      expect(JSON.parse(presentDownloadLine({ outputFormat: 'html' }, record()))).not.toHaveProperty('cache');
    });
  });
});
