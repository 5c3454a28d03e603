import type { Viewport } from 'puppeteer-core';
import type { FetchOptionsV1 } from '@trawl/contracts';

/** Viewport of a `desktop` page (the default), CSS pixels. */
export const DESKTOP_VIEWPORT = { width: 1920, height: 1080 } as const;
/** Viewport of a `mobile` page (a common phone), CSS pixels. */
export const MOBILE_VIEWPORT = { width: 390, height: 844 } as const;

/**
 * The viewport for `device`, `window_width` and `window_height`. The scale factor stays 1 so a
 * screenshot's pixels are CSS pixels (what `window_width` asked for).
 */
export function viewportFor(options: Pick<FetchOptionsV1, 'device' | 'window_width' | 'window_height'>): Viewport {
  const mobile = options.device === 'mobile';
  const base = mobile ? MOBILE_VIEWPORT : DESKTOP_VIEWPORT;
  return {
    width: options.window_width ?? base.width,
    height: options.window_height ?? base.height,
    deviceScaleFactor: 1,
    isMobile: mobile,
    hasTouch: mobile,
  };
}

/**
 * A user agent for `device` from the browser's own: headless Chromium announces itself as
 * `HeadlessChrome`, which sites block on sight; mobile pages get Chrome for Android's form.
 */
export function userAgentFor(browserUserAgent: string, device: FetchOptionsV1['device']): string {
  const desktop = browserUserAgent.replace('HeadlessChrome/', 'Chrome/');
  if (device !== 'mobile') return desktop;
  const version = /Chrome\/(\d+)/.exec(desktop)?.[1] ?? '130';
  return `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version}.0.0.0 Mobile Safari/537.36`;
}
