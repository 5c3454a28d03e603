import { rawTimeZones } from '@vvo/tzdb';
import { acceptLanguage, languagesFor, timezoneFor, ZONE_SHARES } from './locale';
import { seededRandom } from './seeded-random';

describe('languagesFor', () => {
  it.each([
    ['US', ['en-US', 'en']],
    ['de', ['de-DE', 'de', 'en-US', 'en']],
    ['FR', ['fr-FR', 'fr', 'en-US', 'en']],
    ['GB', ['en-GB', 'en', 'en-US']],
    ['IN', ['en-IN', 'en', 'hi']],
  ])('gives a browser in %s the languages %j', (country, languages) => {
    expect(languagesFor(country)).toEqual(languages);
  });
});

describe('acceptLanguage', () => {
  it('writes q-values the way Chrome does (none on the first, then 0.9, 0.8, … down to 0.1)', () => {
    expect(acceptLanguage(['de-DE', 'de', 'en-US', 'en'])).toBe('de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7');
    expect(acceptLanguage(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'])).toMatch(/,j;q=0\.1,k;q=0\.1,l;q=0\.1$/);
  });
});

describe('timezoneFor', () => {
  it('gives a one-clock country its zone, and a zone tzdb knows for every country it lists', () => {
    const random = seededRandom('t');
    expect(timezoneFor('de', random)).toBe('Europe/Berlin');
    expect(timezoneFor('ES', random)).toBe('Europe/Madrid');
    for (const zone of rawTimeZones)
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: timezoneFor(zone.countryCode, random) })).not.toThrow();
  });

  it('spreads a many-clock country by population: New York more often than Denver', () => {
    const random = seededRandom('spread');
    const zones = Array.from({ length: 1_000 }, () => timezoneFor('US', random));
    const count = (name: string) => zones.filter((zone) => zone === name).length;
    expect(count('America/New_York')).toBeGreaterThan(count('America/Denver') * 4);
    expect(count('America/Adak')).toBe(0);
  });

  it('has population shares for every country that tzdb gives more than one clock (kept complete as tzdb changes)', () => {
    const clocks = new Map<string, number>();
    for (const zone of rawTimeZones) clocks.set(zone.countryCode, (clocks.get(zone.countryCode) ?? 0) + 1);
    const many = [...clocks].filter(([, count]) => count > 1).map(([country]) => country);
    expect(many.filter((country) => !ZONE_SHARES[country])).toEqual([]);
  });
});
