import { IdentityGenerator, type IdentityRequest } from './identity-generator';
import { isDesktopScreen } from './screens';

const ENGINE = { major: 156, fullVersion: '156.0.8078.108' };

describe(IdentityGenerator.name, () => {
  const generator = new IdentityGenerator(ENGINE);
  const request = (overrides: Partial<IdentityRequest> = {}): IdentityRequest => ({
    tenantId: 'tenant-a',
    domain: 'shop.test',
    device: 'desktop',
    ...overrides,
  });
  // One draw per session id: enough to see the dataset's spread, and quick (about 2 ms a draw).
  const sample = Array.from({ length: 150 }, (_, sessionId) => generator.identityFor(request({ sessionId })));

  describe('identityFor', () => {
    it('gives the same identity for the same tenant and domain, in another generator too (no shared store)', () => {
      const first = generator.identityFor(request());
      expect(new IdentityGenerator(ENGINE).identityFor(request())).toEqual(first);
    });

    it('holds one identity per session whatever the domain, and per domain without a session', () => {
      expect(generator.identityFor(request({ sessionId: 7, domain: 'a.test' }))).toEqual(
        generator.identityFor(request({ sessionId: 7, domain: 'b.test' })),
      );
      expect(generator.identityFor(request({ domain: 'a.test' })).id).not.toBe(generator.identityFor(request({ domain: 'b.test' })).id);
    });

    it('gives two tenants different identities for the same domain', () => {
      expect(generator.identityFor(request({ tenantId: 'tenant-b' })).id).not.toBe(generator.identityFor(request()).id);
    });

    it('varies across sessions: systems, screens, cores and GPUs are drawn, not fixed', () => {
      expect(new Set(sample.map((identity) => identity.os)).size).toBeGreaterThanOrEqual(2);
      expect(new Set(sample.map((identity) => `${identity.screen.width}x${identity.screen.height}`)).size).toBeGreaterThan(5);
      expect(new Set(sample.map((identity) => identity.hardwareConcurrency)).size).toBeGreaterThan(2);
      expect(new Set(sample.map((identity) => identity.webgl.renderer)).size).toBeGreaterThan(20);
      // Windows dominates real desktop traffic; the dataset says so too.
      expect(sample.filter((identity) => identity.os === 'windows').length).toBeGreaterThan(sample.length / 2);
    });

    it('claims the real engine version in the user agent and client hints', () => {
      for (const identity of sample) {
        expect(identity.userAgent).toMatch(/ Chrome\/156\.0\.0\.0 Safari\/537\.36$/);
        expect(identity.userAgentData.brands).toEqual([
          { brand: 'Not:A-Brand', version: '8' },
          { brand: 'Chromium', version: '156' },
          { brand: 'Google Chrome', version: '156' },
        ]);
        expect(identity.userAgentData.fullVersionList.map((brand) => brand.version)).toEqual([
          '8.0.0.0',
          '156.0.8078.108',
          '156.0.8078.108',
        ]);
      }
    });

    it('keeps each identity coherent: platform strings, GPU, window within the screen', () => {
      const platformOf = {
        windows: ['Win32', 'Windows', 'Windows NT 10.0'],
        macos: ['MacIntel', 'macOS', 'Macintosh'],
        linux: ['Linux x86_64', 'Linux', 'X11; Linux'],
      };
      for (const identity of sample) {
        const [navigatorPlatform, hintPlatform, uaPart] = platformOf[identity.os as keyof typeof platformOf];
        expect([identity.navigatorPlatform, identity.userAgentData.platform]).toEqual([navigatorPlatform, hintPlatform]);
        expect(identity.userAgent).toContain(uaPart);
        expect(identity.webgl.renderer).not.toMatch(/SwiftShader|llvmpipe|Basic Render/);
        if (identity.os === 'windows') expect(identity.webgl.renderer).toMatch(/Direct3D|D3D11/);
        if (identity.os === 'linux') expect(identity.userAgentData.platformVersion).toBe('');
        const { screen, window } = identity;
        expect(isDesktopScreen(screen.width, screen.height)).toBe(true);
        expect(window).toEqual({
          outerWidth: screen.availWidth,
          outerHeight: screen.availHeight,
          innerWidth: screen.availWidth,
          innerHeight: screen.availHeight - 87,
        });
        expect(screen.availHeight).toBeLessThan(screen.height);
        expect(identity.hardwareConcurrency).toBeGreaterThanOrEqual(2);
        expect([0.25, 0.5, 1, 2, 4, 8, 16, 32]).toContain(identity.deviceMemory);
      }
    });

    it('follows the proxy country: languages and time zone', () => {
      const german = generator.identityFor(request({ country: 'de' }));
      expect([german.languages, german.timezone]).toEqual([['de-DE', 'de', 'en-US', 'en'], 'Europe/Berlin']);
      const american = generator.identityFor(request());
      expect(american.languages).toEqual(['en-US', 'en']);
      expect(american.timezone).toMatch(/^(America|Pacific)\//);
    });

    it('draws a phone for device=mobile', () => {
      const phone = generator.identityFor(request({ device: 'mobile' }));
      expect(phone).toMatchObject({ os: 'android', navigatorPlatform: expect.stringMatching(/^Linux (armv8l|armv81|aarch64)$/) });
      expect(phone.userAgent).toContain('Mobile Safari/537.36');
      expect(phone.userAgentData).toMatchObject({ mobile: true, platform: 'Android', architecture: '', bitness: '' });
      expect(phone.maxTouchPoints).toBeGreaterThan(0);
    });

    it('draws only upright phone screens for device=mobile (the dataset also holds tablets)', () => {
      for (let session = 0; session < 300; session++) {
        const { screen } = generator.identityFor(request({ device: 'mobile', sessionId: session }));
        expect({ session, upright: screen.width >= 320 && screen.width <= 480 && screen.height >= 640 && screen.height <= 1000 }).toEqual({
          session,
          upright: true,
        });
      }
    });
  });
});
