import { pageDecimalMark } from './decimal-mark';

describe(pageDecimalMark.name, () => {
  it.each([
    ['Kühlschrank XL 1.234,56 € zzgl. Versand 4,95 €', ','],
    ['Regular unleaded $3.459 Car wash $12.00 Membership $1,299.00', '.'],
    ['Prix : 19,99 € TTC', ','],
    ['CHF 1’299.50 inkl. MwSt.', '.'],
    ['Cena 1 299,00 zł, dostawa 9,99 zł', ','],
  ])('reads the mark of the prices in %p as %p', (text, mark) => {
    expect(pageDecimalMark(text)).toBe(mark);
  });

  it('learns nothing from numbers that are not prices', () => {
    // Versions, ratings and times write a point on a page whose prices write a comma.
    expect(pageDecimalMark('Bluetooth 5.3, USB 3.0, 4.5 von 5 Sternen, geöffnet bis 18.30 Uhr')).toBeUndefined();
    expect(pageDecimalMark('Bluetooth 5.3 für 49,99 €')).toBe(',');
  });

  it('learns nothing from prices whose mark could be either', () => {
    expect(pageDecimalMark('Rp 34.000 · Rp 125.000')).toBeUndefined();
    expect(pageDecimalMark('$1,299 or $2,499')).toBeUndefined();
  });

  it('leaves a page whose prices disagree to the number itself', () => {
    expect(pageDecimalMark('19,99 € · $24.99 · 21,50 € · £18.00')).toBeUndefined();
  });

  it('falls back on a language that writes a decimal comma when the prices say nothing', () => {
    expect(pageDecimalMark('Nur 1,089 € pro Liter', 'de-DE')).toBe(',');
    // Swiss shops write money with a point whatever the language.
    expect(pageDecimalMark('Nur CHF 1.089', 'de-CH')).toBeUndefined();
    // English says nothing: an Indonesian shop in English still groups with a point (`Rp 34.000`).
    expect(pageDecimalMark('Rp 34.000', 'en')).toBeUndefined();
    expect(pageDecimalMark('Nur 1.089,50 €', 'en')).toBe(',');
  });
});
