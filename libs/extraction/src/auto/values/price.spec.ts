import { parsePrice } from './price';

const US = { pageUrl: new URL('https://shop.example.com/p/1') };

describe(parsePrice.name, () => {
  it.each([
    ['€19,99', { amount: '19.99', currency: 'EUR' }],
    ['19,99 €', { amount: '19.99', currency: 'EUR' }],
    ['1.299,00 €', { amount: '1299.00', currency: 'EUR' }],
    ['$1,299', { amount: '1299', currency: 'USD' }],
    ['US$ 1,299.99', { amount: '1299.99', currency: 'USD' }],
    ['£7.50', { amount: '7.50', currency: 'GBP' }],
    ['EUR 1.299,00', { amount: '1299.00', currency: 'EUR' }],
    ['1 299,00 zł', { amount: '1299.00', currency: 'PLN' }],
    ["CHF 1'299.–", { amount: '1299', currency: 'CHF' }],
    ['19,- €', { amount: '19', currency: 'EUR' }],
    ['¥1,280', { amount: '1280', currency: 'JPY' }],
    ['₹ 2,499', { amount: '2499', currency: 'INR' }],
    ['Rs. 1,499.00', { amount: '1499.00', currency: 'INR' }],
    ['R$ 49,90', { amount: '49.90', currency: 'BRL' }],
    ['C$ 25.00', { amount: '25.00', currency: 'CAD' }],
    ['1 299 Kč', { amount: '1299', currency: 'CZK' }],
    ['Price: $24.99', { amount: '24.99', currency: 'USD' }],
    ['$10.00 - $20.00', { amount: '10.00', currency: 'USD' }],
    ['From $10', { amount: '10', currency: 'USD' }],
    ['ab 9,99 €*', { amount: '9.99', currency: 'EUR' }],
    ['Was $20.00 Now $15.00', { amount: '15.00', currency: 'USD' }],
    ['$29.99 $19.99', { amount: '29.99', currency: 'USD' }],
  ])('reads %p', (text, expected) => {
    expect(parsePrice(text, US)).toEqual(expected);
  });

  it('reads a bare amount, with price words around it, without a currency', () => {
    expect(parsePrice('19.99')).toEqual({ amount: '19.99' });
    expect(parsePrice('Preis: 19,99')).toEqual({ amount: '19.99' });
    expect(parsePrice('2024')).toEqual({ amount: '2024' });
  });

  it('takes the currency of a shared symbol from the page', () => {
    expect(parsePrice('$25', { pageUrl: new URL('https://shop.ca/x') })).toEqual({ amount: '25', currency: 'CAD' });
    expect(parsePrice('$25', { lang: 'en-AU' })).toEqual({ amount: '25', currency: 'AUD' });
    expect(parsePrice('199 kr', { pageUrl: new URL('https://butik.se/') })).toEqual({ amount: '199', currency: 'SEK' });
    expect(parsePrice('199 kr', { lang: 'da' })).toEqual({ amount: '199', currency: 'DKK' });
    expect(parsePrice('¥99', { lang: 'zh-CN' })).toEqual({ amount: '99', currency: 'CNY' });
  });

  it('answers no currency for kroner on a page of unknown country', () => {
    expect(parsePrice('199 kr')).toEqual({ amount: '199' });
  });

  it.each(['Call 555-1234', 'Item 12345', 'free', '', '20% off', 'Size 10 (UK 8)'])('refuses %p', (text) => {
    expect(parsePrice(text)).toBeUndefined();
  });

  it('refuses, when strict, texts that say more than a price', () => {
    expect(parsePrice('Free shipping on orders over $50', undefined, true)).toBeUndefined();
    expect(parsePrice('Free shipping on orders over $50')).toEqual({ amount: '50', currency: 'USD' });
    expect(parsePrice('Sale price: $15.00', undefined, true)).toEqual({ amount: '15.00', currency: 'USD' });
  });
});
