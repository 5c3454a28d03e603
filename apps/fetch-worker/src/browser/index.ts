export {
  BrowserPool,
  type BrowserLease,
  type BrowserPoolOptions,
  type BrowserPoolStats,
  type LeaseRequest,
  type PageReuseOptions,
} from './browser-pool';
export { registerBrowserPoolMetrics } from './browser-pool.metrics';
export { BrowserError, BrowserErrorCode } from './browser.errors';
export { CHROMIUM_FLAGS, ChromiumProcess, type ChromiumLaunchOptions } from './chromium-process';
export type { CapturedXhr } from './xhr-recorder';
export type { InstructionReport, InstructionsReport } from './js-instructions';
export {
  renderPage,
  type RenderedPage,
  type RenderedScreenshot,
  type RenderInput,
  type RenderOptions,
  type RenderSettings,
} from './render-page';
