import { testIdentity } from '../identity/identity.test-support';
import { viewportFor } from './viewport';

describe('viewport', () => {
  describe(viewportFor.name, () => {
    const identity = testIdentity();

    it("emulates no viewport for a desktop page without a size: it keeps its window's", () => {
      expect(viewportFor({}, identity)).toBeUndefined();
      expect(viewportFor({ device: 'desktop' }, identity)).toBeUndefined();
    });

    it("emulates the size asked for, the identity's window filling in a side not given", () => {
      expect(viewportFor({ window_width: 800, window_height: 600 }, identity)).toEqual({
        width: 800,
        height: 600,
        deviceScaleFactor: 1,
        isMobile: false,
        hasTouch: false,
      });
      expect(viewportFor({ window_width: 800 }, identity)).toMatchObject({ width: 800, height: identity.window.innerHeight });
    });

    it("emulates a touch phone of the identity's size for mobile", () => {
      const phone = testIdentity({ device: 'mobile' });
      expect(viewportFor({ device: 'mobile' }, phone)).toEqual({
        width: phone.window.innerWidth,
        height: phone.window.innerHeight,
        deviceScaleFactor: 1,
        isMobile: true,
        hasTouch: true,
      });
    });
  });
});
