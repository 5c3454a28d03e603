import { createJobInputBody } from './job-inputs.schemas';

describe('createJobInputBody', () => {
  it('names columns by header name with a header, by 0-based index without', () => {
    expect(createJobInputBody.parse({ type: 'csv', csv: { header: true, fields: { url: 'link', external_id: 'sku' } } }).csv).toEqual({
      header: true,
      delimiter: ',',
      quote: '"',
      fields: { url: 'link', externalId: 'sku' },
    });
    expect(
      createJobInputBody.parse({ type: 'csv', csv: { header: true, delimiter: '\t', quote: "'", fields: { url: 'u' } } }).csv,
    ).toMatchObject({ delimiter: '\t', quote: "'" });
    expect(createJobInputBody.parse({ type: 'csv', csv: { header: false, fields: { url: 0 } } }).csv.fields).toEqual({
      url: 0,
      externalId: null,
    });
  });

  it.each([
    [{ header: true, fields: { url: 0 } }, 'invalid_type'],
    [{ header: false, fields: {} }, 'invalid_type'],
    [{ header: false, fields: { url: 16_384 } }, 'custom'],
    [{ header: true, fields: { url: 'link', external_id: 'link' } }, 'custom'],
  ])('refuses csv %j (%s: a type error is a 400, a value a 422)', (csv, code) => {
    const parsed = createJobInputBody.safeParse({ type: 'csv', csv });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.code).toBe(code);
  });
});
