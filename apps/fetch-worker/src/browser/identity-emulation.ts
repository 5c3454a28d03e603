import type { CDPSession, Page } from 'puppeteer-core';
import { CDPSessionEvent } from 'puppeteer-core';
import { screenInfoFlag, type BrowserIdentity } from '../identity';
import { identityScript } from './identity-script';
import { withTimeout } from './with-timeout';

/**
 * The languages every browser is started with (`--accept-lang`): Chrome then writes
 * `Accept-Language` itself, in its own place among the headers. An identity with other languages
 * sets them per page, which moves that header up next to `User-Agent` (DevTools' override does).
 */
const BROWSER_LANGUAGES = ['en-US', 'en'] as const;

/** Launch flags that take away what tells an automated browser from a person's. */
export const STEALTH_FLAGS = [
  // navigator.webdriver (true under automation): BotD's first headless check.
  '--disable-blink-features=AutomationControlled',
  `--accept-lang=${BROWSER_LANGUAGES.join(',')}`,
  // Every screen an identity may have (a window picks its screen by its size; see screenInfoFlag).
  screenInfoFlag(),
  '--window-size=1920,1040',
  '--window-position=0,0',
];

interface PageEmulation {
  /** The identity in force on the page (applies from the next document on). */
  identity?: BrowserIdentity;
  /** The page's browser window, and the outer size it was last given (`1536x824`). */
  windowId?: number;
  windowSize?: string;
  /** The init script registered on each session (page, out-of-process frames), to swap it. */
  scripts: Map<CDPSession, string>;
}

const emulations = new WeakMap<Page, PageEmulation>();

/**
 * Makes the page's next documents, their frames (out-of-process ones included) and their workers
 * present `identity`: user agent and client hints (`navigator.userAgentData`, `sec-ch-ua*`),
 * platform, languages, time zone and locale, cores, memory and WebGL. A page that already presents
 * it costs nothing; a reused page switches in a few milliseconds (no new context).
 *
 * Frames and workers get the same overrides while they wait for the debugger, before their own
 * scripts run: the page's DevTools session announces them before puppeteer lets them run.
 */
export async function emulateIdentity(page: Page, identity: BrowserIdentity, timeoutMs: number): Promise<void> {
  let emulation = emulations.get(page);
  if (emulation?.identity?.id === identity.id) return;
  const session = pageSession(page);
  if (!emulation) {
    emulation = { scripts: new Map() };
    emulations.set(page, emulation);
    followChildren(session, emulation);
  }
  emulation.identity = identity;
  await withTimeout(
    Promise.all([...frameOverrides(session, identity, emulation), sizeWindow(session, identity, emulation)]),
    timeoutMs,
    'emulate identity',
  );
}

/**
 * Gives the page's window the identity's outer size at the screen's corner: it then lies on the
 * identity's screen (see `screenInfoFlag`), and the page, its frames and its media queries report
 * that screen and that window. An emulated viewport would not: out-of-process frames keep the real
 * screen, and the available height equals the height in the page only.
 */
async function sizeWindow(session: CDPSession, identity: BrowserIdentity, emulation: PageEmulation): Promise<void> {
  const { outerWidth, outerHeight } = identity.window;
  const size = `${outerWidth}x${outerHeight}`;
  if (emulation.windowSize === size) return;
  // Asked from the page's own session, the window is the page's.
  emulation.windowId ??= (await session.send('Browser.getWindowForTarget')).windowId;
  await session.send('Browser.setWindowBounds', {
    windowId: emulation.windowId,
    bounds: { left: 0, top: 0, width: outerWidth, height: outerHeight, windowState: 'normal' },
  });
  emulation.windowSize = size;
}

/**
 * puppeteer's own DevTools session of the page target: the one its frames' and workers' sessions
 * attach under (a session from `page.createCDPSession()` has no children). Not in the public types.
 */
function pageSession(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}

function followChildren(session: CDPSession, emulation: PageEmulation): void {
  session.on(CDPSessionEvent.SessionAttached, (child: CDPSession) => {
    const identity = emulation.identity;
    if (!identity) return;
    // Sent at once, in this event, so they arrive before puppeteer resumes the target. A worker has
    // no Page or Emulation domain, a frame's document gets the script from Page: what a target does
    // not take fails, harmlessly.
    for (const sent of frameOverrides(child, identity, emulation)) sent.catch(() => undefined);
    child.send('Runtime.evaluate', { expression: identityScript(identity), silent: true }).catch(() => undefined);
    followChildren(child, emulation);
  });
}

/** What a page or frame target needs for an identity, as independent DevTools calls. */
function frameOverrides(session: CDPSession, identity: BrowserIdentity, emulation: PageEmulation): Promise<unknown>[] {
  const languages = identity.languages.join(',');
  const calls: Promise<unknown>[] = [
    session.send('Network.setUserAgentOverride', {
      userAgent: identity.userAgent,
      platform: identity.navigatorPlatform,
      // Chrome writes the q-values itself from a plain list.
      ...(languages === BROWSER_LANGUAGES.join(',') ? {} : { acceptLanguage: languages }),
      userAgentMetadata: identity.userAgentData,
    }),
    session.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: identity.hardwareConcurrency }),
    session.send('Emulation.setTimezoneOverride', { timezoneId: identity.timezone }).catch(unlessAlreadySet),
    session.send('Emulation.setLocaleOverride', { locale: identity.languages[0] }).catch(unlessAlreadySet),
  ];
  const previous = emulation.scripts.get(session);
  if (previous) calls.push(session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: previous }).catch(() => undefined));
  calls.push(
    session.send('Page.addScriptToEvaluateOnNewDocument', { source: identityScript(identity) }).then(({ identifier }) => {
      emulation.scripts.set(session, identifier);
    }),
  );
  return calls;
}

/** DevTools refuses to set a time zone or locale that is already in force: nothing to do then. */
function unlessAlreadySet(error: unknown): void {
  if (!/already in effect|already (set|overridden)|Another locale override/i.test(String((error as Error)?.message))) throw error;
}
