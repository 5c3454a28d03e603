import { parseDate } from './dates';

describe(parseDate.name, () => {
  it.each([
    ['2024-03-01', '2024-03-01'],
    ['2024-03-01T10:15:00Z', '2024-03-01T10:15:00Z'],
    ['2024-03-01T10:15:00.000+01:00', '2024-03-01T10:15:00+01:00'],
    ['2024-03-01 10:15', '2024-03-01T10:15:00'],
    ['2024-03-01T10:15:00+0530', '2024-03-01T10:15:00+05:30'],
    ['2024/03/01', '2024-03-01'],
    ['01.03.2024', '2024-03-01'],
    ['2024年3月1日', '2024-03-01'],
    ['March 3, 2024', '2024-03-03'],
    ['Mar 3rd, 2024', '2024-03-03'],
    ['3 March 2024', '2024-03-03'],
    ['Published on March 3, 2024 at 10:15 AM EST', '2024-03-03T10:15:00-05:00'],
    ['3 mars 2024', '2024-03-03'],
    ['3. März 2024', '2024-03-03'],
    ['3 de marzo de 2024', '2024-03-03'],
    ['Updated: 12 January 2023', '2023-01-12'],
  ])('reads %p as %p', (text, expected) => {
    expect(parseDate(text)).toBe(expected);
  });

  it('reads slashed dates month first in US English and day first elsewhere', () => {
    expect(parseDate('03/01/2024')).toBe('2024-03-01');
    expect(parseDate('03/01/2024', { lang: 'en-US' })).toBe('2024-03-01');
    expect(parseDate('03/01/2024', { lang: 'en-GB' })).toBe('2024-01-03');
    expect(parseDate('03/01/2024', { lang: 'fr' })).toBe('2024-01-03');
    expect(parseDate('25/12/2024')).toBe('2024-12-25');
  });

  it('prefers the page language for month names', () => {
    expect(parseDate('1 mai 2024', { lang: 'fr-FR' })).toBe('2024-05-01');
  });

  it.each(['2 days ago', 'yesterday', '2024', 'Copyright 2024 Acme', '2024-02-30', '31.04.2024', 'Call 555-1234', ''])(
    'refuses %p',
    (text) => {
      expect(parseDate(text)).toBeUndefined();
    },
  );

  it('refuses, when strict, a sentence that mentions a date', () => {
    const sentence = 'The company reported strong results for the quarter ending March 3, 2024';
    expect(parseDate(sentence, undefined, true)).toBeUndefined();
    expect(parseDate(sentence)).toBe('2024-03-03');
  });
});
