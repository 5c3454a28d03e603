import { load } from 'cheerio';
import { parseDocument } from 'htmlparser2';
import type { AnyNode } from 'domhandler';
import { boundNesting, MAX_ELEMENT_DEPTH } from './bounded-nesting';

/** Deepest element nesting of a parsed document, walked without recursion. */
function depthOf(root: AnyNode): number {
  let deepest = 0;
  const stack: Array<[AnyNode, number]> = [[root, 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth] = entry;
    deepest = Math.max(deepest, depth);
    if ('children' in node) for (const child of node.children) stack.push([child, 'name' in child ? depth + 1 : depth]);
  }
  return deepest;
}

const nested = (depth: number, tag = 'div', inner = 'deep text'): string => `<${tag}>`.repeat(depth) + inner + `</${tag}>`.repeat(depth);

describe(boundNesting.name, () => {
  it('returns a page with few tags unchanged however deep they nest: it cannot cost much', () => {
    const page = nested(2_000);
    expect(boundNesting(page)).toBe(page);
  });

  it('returns a page within the bound unchanged, the same string', () => {
    const page = `<html><body>${nested(100)}${'<p>one<p>two<ul><li>a<li>b</ul>'.repeat(1_000)}</body></html>`;
    expect(boundNesting(page)).toBe(page);
  });

  it('keeps the first levels of a page nested too deep, and every word of its text', () => {
    const bounded = boundNesting(`<body>${nested(5_000)}<p>after</p></body>`);
    const document = parseDocument(bounded);
    expect(depthOf(document)).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH);
    expect(bounded).toContain('deep text');
    expect(bounded.endsWith('<p>after</p></body>')).toBe(true);
  });

  it('bounds a 100,000-deep page for htmlparser2 and for cheerio alike', () => {
    const bounded = boundNesting(nested(100_000, 'span'));
    expect(depthOf(parseDocument(bounded))).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH);
    expect(load(bounded).text()).toBe('deep text');
  });

  it('does not count unclosed paragraphs, items and cells as nested, as parsers do not', () => {
    const sloppy = `<body>${'<p>para'.repeat(2_000)}<ul>${'<li>item'.repeat(2_000)}</ul><table>${'<tr><td>cell'.repeat(2_000)}</table></body>`;
    expect(boundNesting(sloppy)).toBe(sloppy);
  });

  it('does not count tags inside scripts, comments or void elements', () => {
    const page = `<body>${'<br><img src=x><!-- <div> --><script>"<div>"</script>'.repeat(2_000)}<p>end</p></body>`;
    expect(boundNesting(page)).toBe(page);
  });

  it('cannot be fooled by end tags that close nothing: parsers ignore them and keep nesting', () => {
    const page = '<div></span>'.repeat(3_000) + 'x';
    expect(depthOf(parseDocument(boundNesting(page)))).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH);
  });

  it.each([
    ['a `>` inside a quoted attribute value', '<div title="a>b">'],
    ['a quote inside an attribute name', '<div a"b>'],
    ['an attribute value after spaces around `=`', "<div data-x = 'y>z' >"],
    ['a comment ended the short way', '<!-- note --!><div>'],
    ['an upper-case raw-text end tag', '<SCRIPT>x</SCRIPT ><div>'],
    ['a `<` that starts no tag', '<div>1 < 2'],
  ])('sees through %s: the depth stays bounded for both parsers', (_, repeated) => {
    const bounded = boundNesting(repeated.repeat(3_000) + 'x');
    expect(depthOf(parseDocument(bounded))).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH);
    expect(depthOf(load(bounded).root()[0])).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH + 2);
  });

  it('leaves an SVG sprite of thousands of self-closing shapes alone: they close themselves there', () => {
    const sprite = `<body><svg>${'<symbol id="i"><path d="M0 0h1"/><use href="#i"/></symbol>'.repeat(1_500)}</svg><p>text</p></body>`;
    expect(boundNesting(sprite)).toBe(sprite);
  });

  it.each([
    ['a slash that belongs to an unquoted value in SVG', '<svg>', '<g a=b/>'],
    ['self-closing HTML inside an SVG foreignObject', '<svg><foreignObject>', '<div/>'],
    ['HTML inside an SVG title, which is no raw text there', '<svg><title>', '<div>'],
  ])('sees through %s', (_, prefix, repeated) => {
    const bounded = boundNesting(prefix + repeated.repeat(3_000) + 'x');
    expect(depthOf(parseDocument(bounded))).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH + 2);
    expect(depthOf(load(bounded).root()[0])).toBeLessThanOrEqual(MAX_ELEMENT_DEPTH + 4);
  });

  it('takes a bound of its own', () => {
    const bounded = boundNesting(nested(3_000), 10);
    expect(depthOf(parseDocument(bounded))).toBe(10);
    expect(bounded).toContain('deep text');
  });
});
