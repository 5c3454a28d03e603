import { parsePage } from '../parsed-page';
import { extractTables } from './tables';

const tablesOf = (html: string) => extractTables(parsePage(html, 'https://shop.test/'));

describe(extractTables.name, () => {
  it('takes headers from <thead> and rows from body then foot', () => {
    const html = `<table><caption>Sizes</caption><tfoot><tr><td>Total</td><td>3</td></tr></tfoot>
      <thead><tr><th>Size</th><th>Stock</th></tr></thead><tbody><tr><td>S</td><td> 1 </td></tr><tr><td>M</td><td>2</td></tr></tbody></table>`;
    expect(tablesOf(html)).toEqual([
      {
        headers: ['Size', 'Stock'],
        rows: [
          ['S', '1'],
          ['M', '2'],
          ['Total', '3'],
        ],
      },
    ]);
  });

  it('takes the first row as headers when the table has no <th>', () => {
    expect(tablesOf('<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>')).toEqual([
      { headers: ['a', 'b'], rows: [['1', '2']] },
    ]);
  });

  it('repeats spanned cells and pads short rows so rows line up with headers', () => {
    const html = `<table><tr><th colspan="2">Name</th><th>Age</th></tr>
      <tr><td rowspan="2">Ada</td><td>L.</td><td>36</td></tr><tr><td>B.</td></tr><tr><td>x</td></tr></table>`;
    expect(tablesOf(html)).toEqual([
      {
        headers: ['Name', 'Name', 'Age'],
        rows: [
          ['Ada', 'L.', '36'],
          ['Ada', 'B.', ''],
          ['x', '', ''],
        ],
      },
    ]);
  });

  it('answers nested tables on their own, their text inside the outer cell', () => {
    const html = '<table><tr><th>Outer</th></tr><tr><td><table><tr><td>in1</td><td>in2</td></tr></table></td></tr></table>';
    expect(tablesOf(html)).toEqual([
      { headers: ['Outer'], rows: [['in1 in2']] },
      { headers: ['in1', 'in2'], rows: [] },
    ]);
  });

  it('clamps hostile spans and skips empty tables', () => {
    const [table] = tablesOf('<table></table><table><tr><td colspan="99999" rowspan="99999">x</td></tr></table>');
    expect(table.headers).toHaveLength(100);
    expect(table.rows).toEqual([]);
    expect(tablesOf('<table></table>')).toEqual([]);
  });
});
