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
