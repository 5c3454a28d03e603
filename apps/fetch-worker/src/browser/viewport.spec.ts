import { userAgentFor, viewportFor } from './viewport';

describe('viewport', () => {
  describe(viewportFor.name, () => {
    it('answers the desktop viewport by default and the window size when given', () => {
      expect(viewportFor({})).toMatchObject({ width: 1920, height: 1080, isMobile: false, deviceScaleFactor: 1 });
      expect(viewportFor({ window_width: 800, window_height: 600 })).toMatchObject({ width: 800, height: 600 });
    });

    it('emulates a touch phone for mobile', () => {
      expect(viewportFor({ device: 'mobile' })).toEqual({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    });
  });

  describe(userAgentFor.name, () => {
    const headless = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.8078.79 Safari/537.36';

    it('drops the Headless marker', () => {
      expect(userAgentFor(headless, 'desktop')).toBe(headless.replace('HeadlessChrome', 'Chrome'));
    });

    it('answers a Chrome for Android agent of the same major version for mobile', () => {
      expect(userAgentFor(headless, 'mobile')).toMatch(/Android .* Chrome\/156\.0\.0\.0 Mobile Safari/);
    });
  });
});
