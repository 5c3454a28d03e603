import { toPlainText } from './plain-text';

describe(toPlainText.name, () => {
  it('puts block elements on their own lines and paragraphs apart', () => {
    const html = `<!doctype html><html><head><title>Not text</title><style>p{color:red}</style></head>
      <body><h1>Spring   sale</h1><p>Everything
        must go.</p><div>Line one</div><div>Line <b>two</b></div><ul><li>Tea</li><li>Coffee</li></ul></body></html>`;
    expect(toPlainText(html)).toBe('Spring sale\n\nEverything must go.\n\nLine one\nLine two\n\nTea\nCoffee');
  });

  it('leaves out scripts, styles, templates, noscript, svg and elements hidden by markup', () => {
    const html = `<p>Shown</p><script>var secret = "x";</script><noscript>Enable JS</noscript>
      <template><p>Later</p></template><svg><title>icon</title></svg><p hidden>Hidden</p>
      <div style="display: none">Gone</div><p>Also shown</p>`;
    expect(toPlainText(html)).toBe('Shown\n\nAlso shown');
  });

  it('separates table cells with tabs and rows with line breaks', () => {
    const html = '<table><tr><th>Size</th><th>Price</th></tr><tr><td> S </td><td>€ 10</td></tr></table>';
    expect(toPlainText(html)).toBe('Size\tPrice\nS\t€ 10');
  });

  it('keeps <pre> as written, breaks lines at <br> and decodes entities', () => {
    const html = '<p>Fish &amp; chips<br>£5&nbsp;each</p><pre>\nif (a) {\n  b();\n}\n</pre>';
    expect(toPlainText(html)).toBe('Fish & chips\n£5 each\n\nif (a) {\n  b();\n}');
  });

  it('answers an empty string for a page without text', () => {
    expect(toPlainText('<html><head><script>x()</script></head><body> </body></html>')).toBe('');
  });
});

describe('toPlainText on hostile markup', () => {
  it('reads elements nested deeper than the call stack', () => {
    // 20,000 levels overflow the stack of a recursive walk (10,000 already do); more costs seconds in
    // htmlparser2 itself, whose open-element stack shifts an array per level.
    const depth = 20_000;
    expect(toPlainText(`${'<span>'.repeat(depth)}deep${'</span>'.repeat(depth)}`)).toBe('deep');
  });
});
