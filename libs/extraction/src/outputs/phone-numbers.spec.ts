import { parsePage } from '../parsed-page';
import { extractPhoneNumbers } from './phone-numbers';

const phonesOf = (html: string): string[] => extractPhoneNumbers(parsePage(html, 'https://shop.test/contact'));

describe(extractPhoneNumbers.name, () => {
  it('normalises tel: links, dropping RFC 3966 parameters', () => {
    const html = '<a href="tel:+1-555-010-9999">Call</a><a href="tel:+44%2020%207946%200958;ext=12">UK</a><a href="tel:112">SOS</a>';
    expect(phonesOf(html)).toEqual(['+15550109999', '+442079460958', '112']);
  });

  it('finds international and national formats in text', () => {
    const html = `<ul><li>UK: +44 20 7946 0958</li><li>DE: 0049 30 1234567</li><li>US: (555) 123-4567</li>
      <li>FR: 01 23 45 67 89</li><li>Berlin: 030/7654321</li><li>Dotted: 555.123.4567</li></ul>`;
    // The dotted US number is the same as the one in parentheses: listed once.
    expect(phonesOf(html)).toEqual(['+442079460958', '+49301234567', '5551234567', '0123456789', '0307654321']);
  });

  it('drops a national number the page also gives internationally', () => {
    const html = '<a href="tel:+442079460958">Call us</a><p>Local: 020 7946 0958</p>';
    expect(phonesOf(html)).toEqual(['+442079460958']);
  });

  it('does not take dates, prices, quantities, codes or years for phone numbers', () => {
    const html = `<p>Posted 2024-01-31, updated 31/01/2024 and 31.01.2024. Price 1.234.567 or 12 345 678 units.
      Order 20240131123 shipped. ISBN 978-3-16-148410-0-12345. Rated 4.5. Call 555 now. Version 1.2.3.4.</p>`;
    expect(phonesOf(html)).toEqual([]);
  });

  it('ignores numbers in scripts and attributes', () => {
    expect(phonesOf('<div data-phone="+44 20 7946 0958"><script>call("+44 20 7946 0958")</script></div>')).toEqual([]);
  });
});
