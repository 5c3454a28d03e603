import { hasValidCheckDigit, parseGtin } from './identifiers';

describe(parseGtin.name, () => {
  it.each([
    ['4006381333931', '4006381333931'],
    ['036000291452', '036000291452'],
    ['96385074', '96385074'],
    ['10614141000415', '10614141000415'],
    ['9780306406157', '9780306406157'],
    ['EAN: 4006381333931', '4006381333931'],
    ['UPC 036000 291452', '036000291452'],
    ['4 006381 333931', '4006381333931'],
    ['GTIN-13: 4006381333931', '4006381333931'],
  ])('reads %p', (text, expected) => {
    expect(parseGtin(text)).toBe(expected);
  });

  it.each(['4006381333932', '12345', '123456789', 'B07FW264WL', '4006381333931x', ''])('refuses %p', (text) => {
    expect(parseGtin(text)).toBeUndefined();
  });
});

describe(hasValidCheckDigit.name, () => {
  it('checks the GS1 mod-10 digit', () => {
    expect(hasValidCheckDigit('4006381333931')).toBe(true);
    expect(hasValidCheckDigit('4006381333930')).toBe(false);
  });
});
