import { checkCsvRow, columnsFromHeader } from './csv-rows';

describe('CSV rows', () => {
  describe(columnsFromHeader.name, () => {
    it('finds named columns, trimming header cells', () => {
      expect(columnsFromHeader(['id', ' link ', 'ref'], { url: 'link', externalId: 'ref' })).toEqual({ url: 1, externalId: 2 });
    });

    it('takes indexes as positions, checked against the header width', () => {
      expect(columnsFromHeader(['a', 'b'], { url: 1, externalId: null })).toEqual({ url: 1, externalId: null });
      expect(columnsFromHeader(['a', 'b'], { url: 2, externalId: null })).toEqual({ missing: 'url', name: '2' });
    });

    it('names the field whose column is missing', () => {
      expect(columnsFromHeader(['url'], { url: 'URL', externalId: null })).toEqual({ missing: 'url', name: 'URL' });
      expect(columnsFromHeader(['url'], { url: 'url', externalId: 'sku' })).toEqual({ missing: 'external_id', name: 'sku' });
    });
  });

  describe(checkCsvRow.name, () => {
    const columns = { url: 0, externalId: 1 };

    it('keeps a valid row, the URL as the Fetch API reads it and an empty id as none', () => {
      expect(checkCsvRow([' https://Shop.test/a ', 'sku-1'], columns)).toEqual({
        ok: true,
        row: { url: 'https://shop.test/a', externalId: 'sku-1' },
      });
      expect(checkCsvRow(['http://shop.test/', ''], columns)).toEqual({ ok: true, row: { url: 'http://shop.test/', externalId: null } });
    });

    it.each([
      [[''], 'url', /required/],
      [[], 'url', /required/],
      [['ftp://shop.test/'], 'url', /http or https/],
      [['shop.test/page'], 'url', /absolute/],
      [[`https://shop.test/${'a'.repeat(8_200)}`], 'url', /8,192/],
      [['https://shop.test/', 'x'.repeat(256)], 'external_id', /255/],
    ])('refuses %j naming %s', (record, field, reason) => {
      const checked = checkCsvRow(record, columns);
      expect(checked).toMatchObject({ ok: false, field });
      if (!checked.ok) expect(checked.reason).toMatch(reason);
    });

    it('accepts an external id of exactly 255 characters and a URL of exactly 8,192', () => {
      const url = `https://shop.test/${'a'.repeat(8_192 - 'https://shop.test/'.length)}`;
      expect(checkCsvRow([url, 'x'.repeat(255)], columns).ok).toBe(true);
    });
  });
});
