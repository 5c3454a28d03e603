import { parsePage } from '../parsed-page';
import { extractHeadings } from './headings';

describe(extractHeadings.name, () => {
  it('groups heading texts by level in document order, all six levels present', () => {
    const html = '<h1>Shop</h1><h2> New  <em>in</em> </h2><h3></h3><h2>Sale</h2><h6>Fine print</h6><h2>Sale</h2>';
    expect(extractHeadings(parsePage(html, 'https://shop.test/'))).toEqual({
      h1: ['Shop'],
      h2: ['New in', 'Sale', 'Sale'],
      h3: [],
      h4: [],
      h5: [],
      h6: ['Fine print'],
    });
  });
});
