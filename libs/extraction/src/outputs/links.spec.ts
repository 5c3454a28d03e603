import { parsePage } from '../parsed-page';
import { extractLinks } from './links';

describe(extractLinks.name, () => {
  it('answers absolute http(s) links with their text, deduplicated, against <base href>', () => {
    const html = `<head><base href="/shop/"></head><body>
      <a href="cart">  Your
        cart </a><a href="https://other.test/x?a=1#frag">Other</a><a href="cart"></a>
      <a href="/help"><img src="h.png" alt="Help"></a><a href="/about" aria-label="About us"><i></i></a>
      <map><area href="/map" alt="Map area"></map><a href="/first"></a><a href="/first">First</a></body>`;
    expect(extractLinks(parsePage(html, 'https://shop.test/p/1'))).toEqual([
      { url: 'https://shop.test/shop/cart', text: 'Your cart' },
      { url: 'https://other.test/x?a=1#frag', text: 'Other' },
      { url: 'https://shop.test/help', text: 'Help' },
      { url: 'https://shop.test/about', text: 'About us' },
      { url: 'https://shop.test/map', text: 'Map area' },
      { url: 'https://shop.test/first', text: 'First' },
    ]);
  });

  it('leaves out mailto, tel, javascript, data and fragment-only links', () => {
    const html = `<a href="mailto:a@shop.test">m</a><a href="tel:+1555">t</a><a href="javascript:void(0)">j</a>
      <a href="data:text/html,x">d</a><a href="#reviews">r</a><a href="">e</a><a href="http://[bad">b</a>`;
    expect(extractLinks(parsePage(html, 'https://shop.test/'))).toEqual([]);
  });
});
