import { parsePage } from '../parsed-page';
import { extractHashtags } from './hashtags';

const tagsOf = (html: string): string[] => extractHashtags(parsePage(html, 'https://shop.test/'));

describe(extractHashtags.name, () => {
  it('finds hashtags in text, unique case-insensitively, first spelling kept', () => {
    const html = '<p>Summer #Sale on now! #sale #été_2024 (#ootd).</p><p>Follow #TrawlShop</p>';
    expect(tagsOf(html)).toEqual(['#Sale', '#été_2024', '#ootd', '#TrawlShop']);
  });

  it('skips ranks, fragments, entities and code', () => {
    const html = '<p>We are #1. See page#section, C# and &#35;notatag? <a href="#top">top</a></p><style>#id{}</style>';
    expect(tagsOf(html)).toEqual(['#notatag']);
  });
});
