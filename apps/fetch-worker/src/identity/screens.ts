/** A desktop screen a browser may report, CSS pixels at a device pixel ratio of 1. */
export interface DesktopScreen {
  width: number;
  height: number;
}

/**
 * The screens desktop identities may have: the most common desktop resolutions at a pixel ratio of
 * 1 in the fingerprint dataset (together about four in five of its desktop samples). Headless
 * Chromium has one set of screens per process (`--screen-info`), so an identity's screen must be
 * one the browser was started with: identities are drawn from these only, and every browser is
 * started with all of them.
 */
export const DESKTOP_SCREENS: readonly DesktopScreen[] = [
  { width: 1280, height: 720 },
  { width: 1280, height: 800 },
  { width: 1366, height: 768 },
  { width: 1440, height: 900 },
  { width: 1536, height: 864 },
  { width: 1600, height: 900 },
  { width: 1680, height: 1050 },
  { width: 1920, height: 1080 },
  { width: 1920, height: 1200 },
  { width: 2560, height: 1440 },
];

/** The operating system's bar at the bottom of every screen (a taskbar, a dock), CSS px. */
export const SCREEN_BAR_HEIGHT = 40;

/**
 * Height of Chrome's own UI above the page (tabs, address bar), CSS px: what headless Chromium
 * reports between `outerHeight` and `innerHeight` (measured, 156), close to a desktop Chrome's.
 */
export const BROWSER_UI_HEIGHT = 87;

/**
 * `--screen-info` for a browser that can show every screen of {@link DESKTOP_SCREENS}: all at the
 * origin, the smallest first. Headless puts a window on the screen it overlaps most, the first
 * listed on a tie, so a window the size of a screen's work area lands on that screen and every frame
 * of its page, out-of-process ones included, reports that screen.
 */
export function screenInfoFlag(): string {
  const screens = [...DESKTOP_SCREENS].sort((a, b) => a.width * a.height - b.width * b.height);
  return `--screen-info=${screens.map(({ width, height }) => `{0,0 ${width}x${height} workAreaBottom=${SCREEN_BAR_HEIGHT}}`).join('')}`;
}

/** Whether a screen is one a browser can show. */
export function isDesktopScreen(width: number, height: number): boolean {
  return DESKTOP_SCREENS.some((screen) => screen.width === width && screen.height === height);
}
