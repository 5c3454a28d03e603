import type { Viewport } from 'puppeteer-core';
import type { FetchOptionsV1 } from '@trawl/contracts';
import type { BrowserIdentity } from '../identity';

/**
 * The viewport to emulate for `device`, `window_width` and `window_height`, or undefined when a
 * desktop page asks for no size: it then keeps the size of its browser window (the identity's),
 * since an emulated viewport shows itself (the screen and the window stop agreeing with it in
 * out-of-process frames). A size not given is the identity's. The scale factor stays 1 so a
 * screenshot's pixels are CSS pixels (what `window_width` asked for).
 */
export function viewportFor(
  options: Pick<FetchOptionsV1, 'device' | 'window_width' | 'window_height'>,
  identity: BrowserIdentity,
): Viewport | undefined {
  const mobile = options.device === 'mobile';
  if (!mobile && options.window_width === undefined && options.window_height === undefined) return undefined;
  return {
    width: options.window_width ?? identity.window.innerWidth,
    height: options.window_height ?? identity.window.innerHeight,
    deviceScaleFactor: 1,
    isMobile: mobile,
    hasTouch: mobile,
  };
}
