/** The operating systems an identity may claim. */
export type IdentityOs = 'windows' | 'macos' | 'linux' | 'android';

/** One brand of `navigator.userAgentData` and of `sec-ch-ua` (major) or its full-version list. */
export interface BrandVersion {
  brand: string;
  version: string;
}

/**
 * User-agent client hints, as `navigator.userAgentData` gives them and DevTools'
 * `Emulation.UserAgentMetadata` takes them: the same object feeds the browser and the HTTP engine's
 * `sec-ch-ua*` headers, so both say the same.
 */
export interface UserAgentMetadata {
  brands: BrandVersion[];
  fullVersionList: BrandVersion[];
  /** The browser's full version (`156.0.8078.108`). */
  fullVersion: string;
  /** `Windows`, `macOS`, `Linux`, `Android`. */
  platform: string;
  /** Empty on Linux (what Chromium reports there). */
  platformVersion: string;
  /** `x86` or `arm`; empty on Android. */
  architecture: string;
  /** `64`; empty on Android. */
  bitness: string;
  /** The phone's model on Android, else empty. */
  model: string;
  mobile: boolean;
  wow64: boolean;
  formFactors: string[];
}

/**
 * One coherent browser, as a site sees it: what its user agent, client hints, navigator, screen,
 * window and WebGL say. Every engine reads the same object (the HTTP engine for its headers, the
 * browser for its overrides), so the requests of one session, rendered or not, are one browser.
 * Drawn by {@link IdentityGenerator} from real-world data; never built by hand outside tests.
 */
export interface BrowserIdentity {
  /** A short hash of what the identity was drawn from: equal ids, equal identities (logs, tests). */
  id: string;
  os: IdentityOs;
  /** The browser's major version: the one its rendering engine really is. */
  major: number;
  userAgent: string;
  /** `navigator.platform` (`Win32`, `MacIntel`, `Linux x86_64`, `Linux armv81`). */
  navigatorPlatform: string;
  userAgentData: UserAgentMetadata;
  /** `navigator.languages`, most preferred first; `Accept-Language` is made from it. */
  languages: string[];
  /** IANA time zone, matching the proxy's country when there is one. */
  timezone: string;
  /** CSS pixels. */
  screen: {
    width: number;
    height: number;
    availWidth: number;
    availHeight: number;
    availTop: number;
    availLeft: number;
    colorDepth: number;
  };
  /** The browser window in CSS pixels: `inner*` is the page's viewport, `outer*` adds the browser's own UI. */
  window: {
    outerWidth: number;
    outerHeight: number;
    innerWidth: number;
    innerHeight: number;
  };
  hardwareConcurrency: number;
  /** GiB, as `navigator.deviceMemory` rounds it. */
  deviceMemory: number;
  maxTouchPoints: number;
  /** What `WEBGL_debug_renderer_info` unmasks. */
  webgl: { vendor: string; renderer: string };
}
