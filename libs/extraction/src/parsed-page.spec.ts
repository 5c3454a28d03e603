import { applyCssExtractor } from './css-extractor';
import { ExtractionErrorCode } from './extraction.errors';
import { extractOutputs } from './extract-outputs';
import { parsePage } from './parsed-page';

describe(parsePage.name, () => {
  it('resolves against the first <base href>, itself relative to the page URL', () => {
    const page = parsePage('<base href="../assets/"><base href="/ignored/"><p>x</p>', 'https://shop.test/a/b/page');
    expect(page.baseUrl.href).toBe('https://shop.test/a/assets/');
    expect(page.resolve('img.png')).toBe('https://shop.test/a/assets/img.png');
  });

  it('keeps the page URL as base when <base href> is not http(s)', () => {
    const page = parsePage('<base href="javascript:alert(1)">', 'https://shop.test/a/page');
    expect(page.baseUrl.href).toBe('https://shop.test/a/page');
  });

  it.each(['not a url', '/relative/path', 'ftp://shop.test/', 'file:///etc/passwd'])('refuses the page URL %s', (url) => {
    expect(() => parsePage('<p>x</p>', url)).toThrow(expect.objectContaining({ code: ExtractionErrorCode.InvalidPageUrl }));
  });

  it('indexes elements by name in document order', () => {
    const page = parsePage('<h2>b</h2><h1>a</h1><h2>c</h2>', 'https://shop.test/');
    expect(page.elements('h1', 'h2').map((element) => element.name)).toEqual(['h2', 'h1', 'h2']);
    expect(page.elements('h2')).toHaveLength(2);
    expect(page.elements('nothing')).toEqual([]);
  });

  it('survives elements nested deeper than the call stack', () => {
    // 20,000 levels overflow the stack of a recursive walk (10,000 already do); more costs seconds in
    // htmlparser2 itself, whose open-element stack shifts an array per level.
    const depth = 20_000;
    const html = `${'<span>'.repeat(depth)}deep #tag a@shop.test${'</span>'.repeat(depth)}`;
    const page = parsePage(html, 'https://shop.test/');
    expect(extractOutputs(page, undefined, ['hashtags', 'emails', 'menus'])).toEqual({
      hashtags: ['#tag'],
      emails: ['a@shop.test'],
      menus: [],
    });
    expect(applyCssExtractor(page, { body: 'body' })).toEqual({ body: 'deep #tag a@shop.test' });
  });
});
