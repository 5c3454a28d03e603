import { chromeBrands, secChUa } from './brands';

describe('chromeBrands', () => {
  it("gives Chrome 156's brands, as Chromium 156 on this machine reports its own two", () => {
    const { brands, fullVersionList } = chromeBrands(156, '156.0.8078.108');
    expect(secChUa(brands)).toBe('"Not:A-Brand";v="8", "Chromium";v="156", "Google Chrome";v="156"');
    expect(fullVersionList).toEqual([
      { brand: 'Not:A-Brand', version: '8.0.0.0' },
      { brand: 'Chromium', version: '156.0.8078.108' },
      { brand: 'Google Chrome', version: '156.0.8078.108' },
    ]);
  });

  it("moves the GREASE brand as Chrome does: 147's list, as real Chrome 147 browsers send it", () => {
    expect(secChUa(chromeBrands(147, '147.0.7727.56').brands)).toBe('"Google Chrome";v="147", "Not.A/Brand";v="8", "Chromium";v="147"');
  });
});
