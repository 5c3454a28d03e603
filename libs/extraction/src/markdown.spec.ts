import { ExtractionErrorCode } from './extraction.errors';
import { toMarkdown } from './markdown';

const PAGE_URL = 'https://shop.test/blog/post.html';

describe(toMarkdown.name, () => {
  it('renders headings, emphasis, lists, code and absolute links and images', () => {
    const html = `<html><body><main>
      <h1>Release notes</h1><h2>Changes</h2>
      <p>Read the <a href="../docs/">docs</a>, <strong>now</strong> and <em>carefully</em>, <del>not</del>.</p>
      <ul><li>One</li><li>Two</li></ul><ol><li>First</li></ol>
      <pre><code class="language-ts">const a = 1;</code></pre>
      <img src="/img/a.png" alt="A chart"><img data-src="lazy.jpg" alt="Lazy">
    </main></body></html>`;
    expect(toMarkdown(html, PAGE_URL)).toBe(
      [
        '# Release notes',
        '',
        '## Changes',
        '',
        'Read the [docs](https://shop.test/docs/), **now** and _carefully_, ~~not~~.',
        '',
        '- One',
        '- Two',
        '',
        '1. First',
        '',
        '```ts',
        'const a = 1;',
        '```',
        '',
        '![A chart](https://shop.test/img/a.png)![Lazy](https://shop.test/blog/lazy.jpg)',
      ].join('\n'),
    );
  });

  it('takes <main> when the page has one and drops scripts, styles and noscript', () => {
    const html = `<body><nav><a href="/">Home</a></nav><main><p>Body text</p><script>alert(1)</script>
      <style>.a{}</style><noscript>Enable JS</noscript><template><p>t</p></template></main><footer>© Shop</footer></body>`;
    expect(toMarkdown(html, PAGE_URL)).toBe('Body text');
  });

  it('drops navigation, sidebars and the site header and footer when no main content is marked', () => {
    const html = `<body><header><a href="/">Logo</a></header><nav><a href="/a">A</a></nav>
      <div><p>Article text</p></div><aside>Ads</aside><footer>Footer</footer></body>`;
    expect(toMarkdown(html, PAGE_URL)).toBe('Article text');
  });

  it('renders a simple table as a GFM table, first row as header, padded to its width', () => {
    const html = `<main><table><thead><tr><th>Plan</th><th>Price</th><th>Notes</th></tr></thead>
      <tbody><tr><td><a href="/basic">Basic</a></td><td>$1 | month</td></tr><tr><td colspan="2">Free trial</td><td>x</td></tr></tbody></table></main>`;
    expect(toMarkdown(html, PAGE_URL)).toBe(
      [
        '| Plan | Price | Notes |',
        '| --- | --- | --- |',
        '| [Basic](https://shop.test/basic) | $1 \\| month |  |',
        '| Free trial |  | x |',
      ].join('\n'),
    );
  });

  it('keeps every word of a table a GFM grid cannot show (rowspan)', () => {
    const html = '<main><table><tr><td rowspan="2">Left</td><td>Top</td></tr><tr><td>Bottom</td></tr></table></main>';
    const markdown = toMarkdown(html, PAGE_URL);
    expect(markdown).not.toContain('---');
    expect(markdown.split(/\s+/)).toEqual(['Left', 'Top', 'Bottom']);
  });

  it('resolves links against <base href>, keeps mailto and drops javascript: hrefs and empty links', () => {
    const html = `<head><base href="https://cdn.shop.test/en/"></head><body><main>
      <p><a href="page">Page</a> <a href="mailto:a@shop.test">Mail</a> <a href="javascript:void(0)">Click</a> <a href="/x"><i class="icon"></i></a></p>
      <p><img src="data:image/gif;base64,R0lGOD" alt="Pixel"></p></main></body>`;
    expect(toMarkdown(html, PAGE_URL)).toBe('[Page](https://cdn.shop.test/en/page) [Mail](mailto:a@shop.test) Click\n\nPixel');
  });

  it('keeps a <pre> without <code> preformatted', () => {
    expect(toMarkdown('<main><pre>a\n  b</pre></main>', PAGE_URL)).toBe('```\na\n  b\n```');
  });

  it('refuses a page URL that is not absolute http(s)', () => {
    expect(() => toMarkdown('<p>x</p>', '/relative')).toThrow(expect.objectContaining({ code: ExtractionErrorCode.InvalidPageUrl }));
  });
});

describe('toMarkdown lists', () => {
  it('indents nested lists under their item and numbers from <ol start>', () => {
    const html = '<main><ul><li>Fruit<ul><li>Apple</li></ul></li><li>Tea</li></ul><ol start="3"><li>c</li><li>d</li></ol></main>';
    expect(toMarkdown(html, PAGE_URL)).toBe('- Fruit\n  - Apple\n- Tea\n\n3. c\n4. d');
  });
});

describe('toMarkdown on hostile markup', () => {
  it('renders elements nested deeper than the call stack as their text', () => {
    // 20,000 levels overflow the stack of a recursive walk (10,000 already do); more costs seconds in
    // htmlparser2 itself, whose open-element stack shifts an array per level.
    const depth = 20_000;
    const html = `<main><h1>Top</h1>${'<div><span>'.repeat(depth / 2)}deep *text*${'</span></div>'.repeat(depth / 2)}</main>`;
    expect(toMarkdown(html, PAGE_URL)).toBe('# Top\n\ndeep \\*text\\*');
  });
});

describe('toMarkdown hidden content', () => {
  it('drops elements hidden by their markup, form controls and embedded frames', () => {
    const html = `<main><p>Seen</p><p hidden>Hidden</p><div style="DISPLAY: none">Gone</div><div style="display:none">Gone too</div>
      <form><input value="q"><button>Search</button><label>Label</label></form><iframe src="/ad"></iframe></main>`;
    expect(toMarkdown(html, PAGE_URL)).toBe('Seen\n\nLabel');
  });
});
