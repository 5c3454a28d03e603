import { rawTimeZones } from '@vvo/tzdb';
import { pickWeighted, type Random } from './seeded-random';

// Where a country has several clocks, most people live on a few of them: a uniform pick would put one
// US proxy in eight on Adak, and tzdb lists a country's zones by offset (Spain's Canary Islands
// first). Shares of population, rounded, for every country with more than one clock; countries with
// one take tzdb's. A unit test keeps this list complete as tzdb changes.
export const ZONE_SHARES: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  US: [
    ['America/New_York', 47],
    ['America/Chicago', 29],
    ['America/Los_Angeles', 16],
    ['America/Denver', 5],
    ['America/Phoenix', 2],
    ['Pacific/Honolulu', 0.5],
    ['America/Anchorage', 0.3],
  ],
  CA: [
    ['America/Toronto', 62],
    ['America/Vancouver', 14],
    ['America/Edmonton', 12],
    ['America/Halifax', 5],
    ['America/Winnipeg', 4],
    ['America/Regina', 3],
  ],
  BR: [
    ['America/Sao_Paulo', 92],
    ['America/Manaus', 6],
    ['America/Rio_Branco', 2],
  ],
  MX: [
    ['America/Mexico_City', 80],
    ['America/Tijuana', 8],
    ['America/Hermosillo', 6],
    ['America/Cancun', 6],
  ],
  RU: [
    ['Europe/Moscow', 70],
    ['Asia/Yekaterinburg', 12],
    ['Asia/Novosibirsk', 8],
    ['Asia/Krasnoyarsk', 5],
    ['Asia/Vladivostok', 5],
  ],
  AU: [
    ['Australia/Sydney', 60],
    ['Australia/Brisbane', 20],
    ['Australia/Perth', 11],
    ['Australia/Adelaide', 8],
    ['Australia/Darwin', 1],
  ],
  ID: [
    ['Asia/Jakarta', 80],
    ['Asia/Makassar', 17],
    ['Asia/Jayapura', 3],
  ],
  KZ: [
    ['Asia/Almaty', 80],
    ['Asia/Aqtobe', 20],
  ],
  CL: [['America/Santiago', 1]],
  EC: [['America/Guayaquil', 1]],
  PT: [['Europe/Lisbon', 1]],
  ES: [['Europe/Madrid', 1]],
  UA: [['Europe/Kyiv', 1]],
  CN: [['Asia/Shanghai', 1]],
  MN: [['Asia/Ulaanbaatar', 1]],
  GL: [['America/Nuuk', 1]],
  NZ: [['Pacific/Auckland', 1]],
  CD: [['Africa/Kinshasa', 1]],
  PG: [['Pacific/Port_Moresby', 1]],
  KI: [['Pacific/Tarawa', 1]],
  FM: [['Pacific/Chuuk', 1]],
  PF: [['Pacific/Tahiti', 1]],
  UM: [['Pacific/Wake', 1]],
  AQ: [['Antarctica/McMurdo', 1]],
};

// English is the first language where the likely-language data says so, or where browsers are
// mostly set to it although another language is official.
const LANGUAGES_OF: Readonly<Record<string, readonly string[]>> = {
  IN: ['en-IN', 'en', 'hi'],
  SG: ['en-SG', 'en'],
  PH: ['en-PH', 'en'],
  NG: ['en-NG', 'en'],
  PK: ['en-PK', 'en'],
  HK: ['zh-HK', 'zh', 'en'],
};

/** The country assumed without a proxy country: the default pools' traffic is mostly American. */
export const DEFAULT_COUNTRY = 'US';

/**
 * `navigator.languages` of a browser in `country` (ISO 3166 alpha-2, any case): the country's likely
 * language (CLDR, through Node's ICU) with English after it, as browsers outside English-speaking
 * countries are commonly set.
 */
export function languagesFor(country: string = DEFAULT_COUNTRY): string[] {
  const code = country.toUpperCase();
  const fixed = LANGUAGES_OF[code];
  if (fixed) return [...fixed];
  let language = 'en';
  try {
    language = new Intl.Locale(`und-${code}`).maximize().language;
  } catch {
    // Not a region ICU knows: English.
  }
  if (language === 'en') return code === 'US' ? ['en-US', 'en'] : [`en-${code}`, 'en', 'en-US'];
  return [`${language}-${code}`, language, 'en-US', 'en'];
}

/** `Accept-Language` as Chrome writes it from its languages: `de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7`. */
export function acceptLanguage(languages: readonly string[]): string {
  return languages.map((language, i) => (i === 0 ? language : `${language};q=${Math.max(1, 10 - i) / 10}`)).join(',');
}

/** A time zone where people in `country` live, drawn by population where the country has several. */
export function timezoneFor(country: string, random: Random): string {
  const code = country.toUpperCase();
  const shares = ZONE_SHARES[code];
  if (shares) return pickWeighted(random, shares);
  const zone = rawTimeZones.find((candidate) => candidate.countryCode === code);
  return zone?.name ?? 'UTC';
}
