import { createHash } from 'node:crypto';
import { FingerprintGenerator, type Fingerprint } from 'fingerprint-generator';
import type { BrowserIdentity, IdentityOs } from './browser-identity';
import { chromeBrands } from './brands';
import { languagesFor, timezoneFor, DEFAULT_COUNTRY } from './locale';
import { BROWSER_UI_HEIGHT, isDesktopScreen, SCREEN_BAR_HEIGHT } from './screens';
import { seededRandom, withMathRandom, type Random } from './seeded-random';

/** The browser engine the identities claim: the Chromium that really renders (`chromium --version`). */
export interface EngineVersion {
  major: number;
  /** `156.0.8078.108`. */
  fullVersion: string;
}

/** Whose browser an identity is, and where it appears to be. */
export interface IdentityRequest {
  tenantId: string;
  /** The request's `session_id`: one identity for every request of the session. */
  sessionId?: number;
  /** The registrable domain of the target: without a session, one identity per tenant and domain. */
  domain: string;
  device: 'desktop' | 'mobile';
  /** `proxy_country` (ISO alpha-2): languages and time zone follow it. Default: the US. */
  country?: string;
}

export interface IdentityGeneratorOptions {
  /** Identities kept drawn, most recently used first; one costs ~1.5 KB. Default: 5,000. */
  cacheSize?: number;
}

// The version of the drawing below: a change to it that would change identities bumps it, so a
// key's identity changes once, deliberately, like a browser update.
const DRAW_VERSION = 'trawl-identity/1';

const UA_PLATFORM: Record<IdentityOs, string> = {
  windows: 'Windows NT 10.0; Win64; x64',
  macos: 'Macintosh; Intel Mac OS X 10_15_7',
  linux: 'X11; Linux x86_64',
  android: 'Linux; Android 10; K',
};
const CLIENT_HINT_PLATFORM: Record<IdentityOs, string> = { windows: 'Windows', macos: 'macOS', linux: 'Linux', android: 'Android' };
const NAVIGATOR_PLATFORM: Record<IdentityOs, RegExp> = {
  windows: /^Win32$/,
  macos: /^MacIntel$/,
  linux: /^Linux x86_64$/,
  android: /^Linux (armv8l|armv81|aarch64)$/,
};

// Software renderers and virtual machines' GPUs are what bots run on; the dataset has a few of them.
const BOT_GPU = /SwiftShader|llvmpipe|Basic Render Driver|VMware|VirtualBox|Parallels|OffScreen/i;

// Apple silicon has a fixed number of cores per chip; the dataset draws cores apart from the GPU.
const APPLE_CORES: Record<string, readonly number[]> = {
  M1: [8],
  'M1 Pro': [8, 10],
  'M1 Max': [10],
  'M1 Ultra': [20],
  M2: [8],
  'M2 Pro': [10, 12],
  'M2 Max': [12],
  'M2 Ultra': [24],
  M3: [8],
  'M3 Pro': [11, 12],
  'M3 Max': [14, 16],
  'M3 Ultra': [28, 32],
  M4: [10],
  'M4 Pro': [12, 14],
  'M4 Max': [14, 16],
  M5: [10],
};

/**
 * Draws browser identities from real-world data (fingerprint-generator's Bayesian network of
 * collected browser fingerprints: screens, cores, memory, GPUs per operating system), as a function
 * of the request's tenant and session (or domain), so that every worker replica, and every restart,
 * gives a session the same identity without storing it. The engine version is always the real one;
 * the dataset's own versions only say which hardware goes with which system.
 */
export class IdentityGenerator {
  private generator?: FingerprintGenerator;
  private readonly cache = new Map<string, BrowserIdentity>();
  private readonly cacheSize: number;

  constructor(
    private readonly engine: EngineVersion,
    options: IdentityGeneratorOptions = {},
  ) {
    this.cacheSize = options.cacheSize ?? 5_000;
  }

  /** Loads the dataset (~160 ms, synchronous): call at start so the first request does not pay it. */
  warm(): void {
    this.generator ??= new FingerprintGenerator();
  }

  /** The identity of `request`: the same for the same tenant, session (or domain), device and country. */
  identityFor(request: IdentityRequest): BrowserIdentity {
    const country = (request.country ?? DEFAULT_COUNTRY).toUpperCase();
    const holder = request.sessionId !== undefined ? `session:${request.sessionId}` : `domain:${request.domain}`;
    const key = `${request.tenantId}\n${holder}\n${request.device}\n${country}`;
    const cached = this.cache.get(key);
    if (cached) {
      // Map keeps insertion order: re-inserting makes it the most recently used.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const identity = this.draw(key, request.device, country);
    this.cache.set(key, identity);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return identity;
  }

  private draw(key: string, device: 'desktop' | 'mobile', country: string): BrowserIdentity {
    const seed = `${DRAW_VERSION}\n${key}`;
    const random = seededRandom(seed);
    const { fingerprint, os } = this.drawFingerprint(random, device);
    const { navigator: nav, screen, videoCard } = fingerprint;
    const { brands, fullVersionList } = chromeBrands(this.engine.major, this.engine.fullVersion);
    const mobile = os === 'android';
    const gpu = videoCard.renderer;
    const architecture = mobile ? '' : os === 'macos' && /Apple M\d/.test(gpu) ? 'arm' : 'x86';
    const chip = /Apple (M\d(?: Pro| Max| Ultra)?)\b/.exec(gpu)?.[1];
    const cores = chip ? APPLE_CORES[chip] : undefined;
    // A desktop window fills the screen above the system's bar, as a maximised one does.
    const availHeight = mobile ? screen.availHeight : screen.height - SCREEN_BAR_HEIGHT;
    const languages = languagesFor(country);
    return {
      id: createHash('sha256').update(seed).digest('base64url').slice(0, 12),
      os,
      major: this.engine.major,
      userAgent: `Mozilla/5.0 (${UA_PLATFORM[os]}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${this.engine.major}.0.0.0 ${mobile ? 'Mobile ' : ''}Safari/537.36`,
      navigatorPlatform: nav.platform,
      userAgentData: {
        brands,
        fullVersionList,
        fullVersion: this.engine.fullVersion,
        platform: CLIENT_HINT_PLATFORM[os],
        // Chromium reports no version of Linux.
        platformVersion: os === 'linux' ? '' : nav.userAgentData.platformVersion,
        architecture,
        bitness: mobile ? '' : '64',
        model: mobile ? nav.userAgentData.model || 'K' : '',
        mobile,
        wow64: false,
        formFactors: [mobile ? 'Mobile' : 'Desktop'],
      },
      languages,
      timezone: timezoneFor(country, random),
      screen: {
        width: screen.width,
        height: screen.height,
        availWidth: mobile ? screen.availWidth : screen.width,
        availHeight,
        availTop: 0,
        availLeft: 0,
        colorDepth: screen.colorDepth,
      },
      window: mobile
        ? {
            outerWidth: screen.width,
            outerHeight: screen.height,
            innerWidth: screen.width,
            innerHeight: screen.height - between(random, 56, 80),
          }
        : { outerWidth: screen.width, outerHeight: availHeight, innerWidth: screen.width, innerHeight: availHeight - BROWSER_UI_HEIGHT },
      hardwareConcurrency: cores ? cores[Math.floor(random() * cores.length)] : nav.hardwareConcurrency,
      deviceMemory: nav.deviceMemory ?? 8,
      maxTouchPoints: mobile ? nav.maxTouchPoints || 5 : 0,
      webgl: { vendor: videoCard.vendor, renderer: gpu },
    };
  }

  /** A sample of the dataset that a real Chrome could be, with its system; drawn again until one is. */
  private drawFingerprint(random: Random, device: 'desktop' | 'mobile'): { fingerprint: Fingerprint; os: IdentityOs } {
    this.warm();
    const operatingSystems = device === 'mobile' ? ['android'] : ['windows', 'macos', 'linux'];
    for (let attempt = 0; attempt < 100; attempt++) {
      const { fingerprint } = withMathRandom(random, () =>
        this.generator!.getFingerprint({
          browsers: [{ name: 'chrome', minVersion: 130 }],
          operatingSystems: operatingSystems as never,
          devices: [device],
          locales: ['en-US'],
        }),
      );
      const os = osOf(fingerprint);
      if (os && plausible(fingerprint, os, device)) return { fingerprint, os };
    }
    throw new Error(`No plausible ${device} fingerprint in 100 draws`);
  }
}

function osOf(fingerprint: Fingerprint): IdentityOs | undefined {
  switch (fingerprint.navigator.userAgentData?.platform) {
    case 'Windows':
      return 'windows';
    case 'macOS':
      return 'macos';
    case 'Linux':
      return 'linux';
    case 'Android':
      return 'android';
    default:
      return undefined;
  }
}

/**
 * Whether a sample could be a real Chrome as we render it: the dataset holds some bots and some
 * inconsistent records (a Linux platform on a Mac, a software GPU, headless brands, no memory), and a
 * desktop page is rendered at a device pixel ratio of 1 on one of the screens its browser has.
 */
function plausible(fingerprint: Fingerprint, os: IdentityOs, device: 'desktop' | 'mobile'): boolean {
  const { navigator: nav, screen, videoCard } = fingerprint;
  const hints = nav.userAgentData;
  if (!videoCard?.renderer || BOT_GPU.test(videoCard.renderer)) return false;
  if (!NAVIGATOR_PLATFORM[os].test(nav.platform)) return false;
  if (hints.brands.some((brand) => /headless/i.test(brand.brand))) return false;
  if (![0.25, 0.5, 1, 2, 4, 8, 16, 32].includes(nav.deviceMemory ?? 0)) return false;
  if (!(nav.hardwareConcurrency >= 2)) return false;
  if (!(screen.width > 0 && screen.height > 0 && screen.availWidth > 0 && screen.availHeight > 200)) return false;
  if (os === 'macos' && !/Apple|Intel|AMD|Radeon/.test(videoCard.renderer)) return false;
  if (os === 'windows' && !/Direct3D|D3D11/.test(videoCard.renderer)) return false;
  // A phone held upright: the dataset's "mobile" holds some tablets and bogus screens.
  if (device === 'mobile' && !(screen.width >= 320 && screen.width <= 480 && screen.height >= 640 && screen.height <= 1000)) return false;
  // The browser renders at a pixel ratio of 1 (a screenshot's pixels are CSS pixels) on the screens
  // it was started with.
  if (device === 'desktop' && (screen.devicePixelRatio !== 1 || hints.architecture === '' || !isDesktopScreen(screen.width, screen.height)))
    return false;
  return true;
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}
