import { normaliseValue, sameValue } from './normalise-value';

const PAGE = { pageUrl: new URL('https://shop.example.com/products/kettle?ref=1') };

describe(normaliseValue.name, () => {
  describe('price', () => {
    it('answers the amount and the currency as extra', () => {
      expect(normaliseValue('price', '1.299,00 €')).toEqual({ value: '1299.00', extra: { currency: 'EUR' } });
      expect(normaliseValue('price', '$1,299')).toEqual({ value: '1299', extra: { currency: 'USD' } });
    });

    it('answers markup amounts without a currency', () => {
      expect(normaliseValue('price', '19.99')).toEqual({ value: '19.99' });
      expect(normaliseValue('price', '119.01')).toEqual({ value: '119.01' });
    });

    it('refuses texts that are not prices', () => {
      expect(normaliseValue('price', 'Call 555-1234')).toBeUndefined();
    });
  });

  describe('currency', () => {
    it.each([
      ['€', 'EUR'],
      ['EUR', 'EUR'],
      ['eur', 'EUR'],
      ['$', 'USD'],
      ['US$', 'USD'],
      ['£', 'GBP'],
      ['CHF', 'CHF'],
      ['zł', 'PLN'],
    ])('reads %p as %p', (text, code) => {
      expect(normaliseValue('currency', text)).toEqual({ value: code });
    });

    it('reads a dollar by the page country and refuses what is no currency', () => {
      expect(normaliseValue('currency', '$', { pageUrl: new URL('https://shop.com.au/') })).toEqual({ value: 'AUD' });
      expect(normaliseValue('currency', 'XYZ')).toBeUndefined();
      expect(normaliseValue('currency', 'dollars and cents')).toBeUndefined();
    });
  });

  describe('rating', () => {
    it.each([
      ['4.5 out of 5', '4.5'],
      ['4,5/5', '4.5'],
      ['Rated 4.50 out of 5 stars', '4.5'],
      ['4.5', '4.5'],
      ['5', '5'],
      ['4,7 von 5 Sternen', '4.7'],
      ['92', '92'],
    ])('reads %p as %p', (text, expected) => {
      expect(normaliseValue('rating', text)).toEqual({ value: expected });
    });

    it('refuses a rating above its scale or without a number', () => {
      expect(normaliseValue('rating', '6 out of 5')).toBeUndefined();
      expect(normaliseValue('rating', 'no reviews yet')).toBeUndefined();
      expect(normaliseValue('rating', '1234')).toBeUndefined();
    });
  });

  describe('date', () => {
    it('answers ISO 8601', () => {
      expect(normaliseValue('date', 'March 3, 2024')).toEqual({ value: '2024-03-03' });
      expect(normaliseValue('date', '2024-03-01T08:00:00-05:00')).toEqual({ value: '2024-03-01T08:00:00-05:00' });
    });
  });

  describe('gtin', () => {
    it('answers verified digits', () => {
      expect(normaliseValue('gtin', '4006381333931')).toEqual({ value: '4006381333931' });
      expect(normaliseValue('gtin', '4006381333932')).toBeUndefined();
    });
  });

  describe('availability', () => {
    it('answers schema.org terms', () => {
      expect(normaliseValue('availability', 'http://schema.org/InStock')).toEqual({ value: 'InStock' });
      expect(normaliseValue('availability', 'nicht verfügbar')).toEqual({ value: 'OutOfStock' });
    });
  });

  describe('email', () => {
    it('reads addresses and mailto links, domain lower-cased', () => {
      expect(normaliseValue('email', 'mailto:Sales@Example.COM?subject=Hi')).toEqual({ value: 'Sales@example.com' });
      expect(normaliseValue('email', ' info@shop.de ')).toEqual({ value: 'info@shop.de' });
      expect(normaliseValue('email', 'not an @ address')).toBeUndefined();
    });
  });

  describe('phone', () => {
    it.each([
      ['+1 (555) 123-4567', '+15551234567'],
      ['tel:+44-20-7946-0958', '+442079460958'],
      ['Call 555-1234', '5551234'],
      ['0049 30 1234567', '+49301234567'],
      ['Tel.: 030 / 123 456 78', '03012345678'],
      ['(555) 123-4567 ext. 12', '5551234567'],
    ])('reads %p as %p', (text, expected) => {
      expect(normaliseValue('phone', text)).toEqual({ value: expected });
    });

    it.each(['4006381333931', '2024-03-01', '01.03.2024', '555', 'phone us'])('refuses %p', (text) => {
      expect(normaliseValue('phone', text)).toBeUndefined();
    });
  });

  describe('url', () => {
    it('resolves against the page and keeps only http(s)', () => {
      expect(normaliseValue('url', '/p/2', PAGE)).toEqual({ value: 'https://shop.example.com/p/2' });
      expect(normaliseValue('image_url', '//cdn.example.com/a.jpg', PAGE)).toEqual({ value: 'https://cdn.example.com/a.jpg' });
      expect(normaliseValue('url', 'www.example.com/x')).toEqual({ value: 'https://www.example.com/x' });
      expect(normaliseValue('url', 'javascript:void(0)', PAGE)).toBeUndefined();
      expect(normaliseValue('image_url', 'data:image/png;base64,AAAA', PAGE)).toBeUndefined();
      expect(normaliseValue('url', '/relative/without/page')).toBeUndefined();
    });
  });

  describe('number', () => {
    it('answers the one number of a text', () => {
      expect(normaliseValue('number', '1,234 reviews')).toEqual({ value: '1234' });
      expect(normaliseValue('number', '(87)')).toEqual({ value: '87' });
      expect(normaliseValue('number', '-2,5')).toEqual({ value: '-2.5' });
      expect(normaliseValue('number', '4.5 out of 5')).toBeUndefined();
      expect(normaliseValue('number', 'none')).toBeUndefined();
    });
  });

  describe('text', () => {
    it('collapses whitespace and refuses empty text', () => {
      expect(normaliseValue('text', '  Deluxe\n\t kettle ')).toEqual({ value: 'Deluxe kettle' });
      expect(normaliseValue('text', ' \n ')).toBeUndefined();
    });
  });
});

describe(sameValue.name, () => {
  it('compares prices and ratings by amount, the rest as written', () => {
    expect(sameValue('price', '85.5', '85.50')).toBe(true);
    expect(sameValue('price', '85.5', '85.05')).toBe(false);
    expect(sameValue('text', 'a', 'a')).toBe(true);
    expect(sameValue('text', '1.0', '1')).toBe(false);
    expect(sameValue('price', undefined, '1')).toBe(false);
  });
});
