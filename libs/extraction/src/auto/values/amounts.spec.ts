import { findAmounts } from './amounts';

const values = (text: string): string[] => findAmounts(text).map((amount) => amount.value);

describe(findAmounts.name, () => {
  it.each([
    ['1,299.00', '1299.00'],
    ['1.299,00', '1299.00'],
    ['1 299,00', '1299.00'],
    ['1\u00a0299,00', '1299.00'],
    ['1\u202f299,00', '1299.00'],
    ["1'299.50", '1299.50'],
    ['1,234,567', '1234567'],
    ['1.234.567,89', '1234567.89'],
    ['19,99', '19.99'],
    ['19.9', '19.9'],
    ['1,299', '1299'],
    ['34.000', '34000'],
    ['0.500', '0.500'],
    ['1234.567', '1234.567'],
    ['12345', '12345'],
  ])('reads %p as %p', (text, expected) => {
    expect(values(text)).toEqual([expected]);
  });

  it.each([
    [',', '1,089', '1.089'],
    [',', '23.450', '23450'],
    ['.', '3.459', '3.459'],
    ['.', '1,299', '1299'],
  ] as const)('reads a lone mark before three digits by the page, whose decimal mark is %p: %p as %p', (decimalMark, text, expected) => {
    expect(findAmounts(text, { decimalMark }).map((amount) => amount.value)).toEqual([expected]);
  });

  it('keeps what the number itself says over the page’s decimal mark', () => {
    expect(findAmounts('1,234.56', { decimalMark: ',' }).map((amount) => amount.value)).toEqual(['1234.56']);
    expect(findAmounts('1.234.567', { decimalMark: '.' }).map((amount) => amount.value)).toEqual(['1234567']);
    expect(findAmounts('19,99', { decimalMark: '.' }).map((amount) => amount.value)).toEqual(['19.99']);
  });

  it('asks the page for its decimal mark only when a number leaves it open', () => {
    const page = {
      asked: 0,
      get decimalMark() {
        this.asked++;
        return ',' as const;
      },
    };
    findAmounts('1.234,56 € 19,99 € 2024-03-01', page);
    expect(page.asked).toBe(0);
    findAmounts('1,089 €', page);
    expect(page.asked).toBe(1);
  });

  it('ends a number where its grouping breaks', () => {
    expect(values('size 10 12')).toEqual(['10', '12']);
    expect(values('2024-03-01')).toEqual(['2024', '03', '01']);
    expect(values('12.5.2024')).toEqual(['12', '5', '2024']);
  });

  it('reads every number of a range, with offsets', () => {
    expect(findAmounts('$10 - $20')).toEqual([
      { value: '10', start: 1, end: 3 },
      { value: '20', start: 7, end: 9 },
    ]);
  });

  it('answers nothing for a text without digits', () => {
    expect(values('free')).toEqual([]);
  });
});
