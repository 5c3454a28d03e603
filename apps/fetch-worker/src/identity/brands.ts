import type { BrandVersion } from './browser-identity';

// Chromium's "GREASE" brand (components/embedder_support/user_agent_utils.cc): a brand name with
// characters and a version chosen from the major version, at a position chosen from it too, so that
// sites do not parse brand lists by position. A list that differs from Chromium's for that version
// is a tell.
const GREASE_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASE_VERSIONS = ['8', '99', '24'];
const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
] as const;

/** The brand lists Google Chrome of this version reports: `sec-ch-ua` (majors) and `fullVersionList`. */
export function chromeBrands(major: number, fullVersion: string): { brands: BrandVersion[]; fullVersionList: BrandVersion[] } {
  const greaseBrand = `Not${GREASE_CHARS[major % GREASE_CHARS.length]}A${GREASE_CHARS[(major + 1) % GREASE_CHARS.length]}Brand`;
  const greaseMajor = GREASE_VERSIONS[major % GREASE_VERSIONS.length];
  const order = ORDERS[major % ORDERS.length];
  const list = (grease: string, version: string): BrandVersion[] => {
    const brands: BrandVersion[] = new Array(3);
    brands[order[0]] = { brand: greaseBrand, version: grease };
    brands[order[1]] = { brand: 'Chromium', version };
    brands[order[2]] = { brand: 'Google Chrome', version };
    return brands;
  };
  return { brands: list(greaseMajor, String(major)), fullVersionList: list(`${greaseMajor}.0.0.0`, fullVersion) };
}

/** `sec-ch-ua`'s value for a brand list: `"Not:A-Brand";v="8", "Chromium";v="156", …`. */
export function secChUa(brands: readonly BrandVersion[]): string {
  return brands.map(({ brand, version }) => `"${brand}";v="${version}"`).join(', ');
}
