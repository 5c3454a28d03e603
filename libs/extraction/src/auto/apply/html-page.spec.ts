import { HtmlPage, structureTokenIndex } from './html-page';

describe('HtmlPage.heldStructureTokens', () => {
  const page = HtmlPage.parse(
    `<html><body id="top">
      <div id="main" class="product  card&#9;wide
        featured"><span class="price">1</span><span class="price sale">2</span></div>
      <p id="a.b" class="x#y"></p><section class=""></section><li class="  lead  "></li><img id="" class=" ">
    </body></html>`,
    'https://shop.test/p/1',
  );

  it('holds exactly the asked tokens the page has, as its whole token set says', () => {
    const asked = [
      ...page.structureTokens,
      'img#x',
      'div#other',
      'span.card',
      'div.pric',
      'p.x',
      'section.',
      'li.',
      'body#main',
      'div.product card',
      'nav.product',
    ];
    const held = page.heldStructureTokens(structureTokenIndex(asked));
    expect([...held].sort()).toEqual(asked.filter((token) => page.structureTokens.has(token)).sort());
    expect(held).toEqual(
      new Set([
        'body#top',
        'div#main',
        'div.product',
        'div.card',
        'div.wide',
        'div.featured',
        'span.price',
        'span.sale',
        'p#a.b',
        'p.x#y',
        'li.lead',
        'img#',
      ]),
    );
  });

  it('holds nothing when nothing is asked, or only what is asked', () => {
    expect(page.heldStructureTokens(structureTokenIndex([])).size).toBe(0);
    expect(page.heldStructureTokens(structureTokenIndex(['span.sale', 'span.gone']))).toEqual(new Set(['span.sale']));
  });
});
