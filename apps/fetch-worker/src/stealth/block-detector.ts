import { load } from 'cheerio';
import { boundNesting } from '@trawl/extraction';

/** Why an answer counts as blocked (for logs, metrics and the REQS002 detail). */
export type BlockReason =
  /** 401, 403, 429 or 503: the usual answers of anti-bot services and WAFs. */
  | 'status'
  /** A challenge or CAPTCHA interstitial (Cloudflare "Just a moment…", DataDome, PerimeterX, …). */
  | 'challenge'
  /** A shell that shows nothing without JavaScript (`<noscript>` or an empty app root, little text). */
  | 'needs_javascript';

/** What the detector looks at: the final answer of one attempt. */
export interface ObservedPage {
  status: number;
  /** Content type of the answer; only HTML is inspected for challenges and emptiness. */
  contentType?: string;
  /** The answer's HTML (decoded); for a rendered page, the DOM after rendering. */
  html: string;
  /** True when the page went through the browser (scripts ran): such a page is never "needs JS". */
  rendered: boolean;
}

export interface BlockDetectorOptions {
  /**
   * A page with less visible text than this (in characters, whitespace collapsed) is "thin": a
   * CAPTCHA marker or a JS shell marker then means a block. Default: 200.
   */
  thinTextChars?: number;
}

const BLOCKING_STATUSES = new Set([401, 403, 429, 503]);

// Interstitials: these strings appear on challenge pages only, whatever their size.
const CHALLENGE_MARKERS: readonly RegExp[] = [
  /<title>\s*just a moment\.*\s*<\/title>/i,
  /<title>[^<]*attention required[^<]*<\/title>/i,
  /\/cdn-cgi\/challenge-platform\//i,
  /\bcf[-_]chl[-_]/i,
  /\bcf-browser-verification\b/i,
  /captcha-delivery\.com/i,
  /\bpx-captcha\b/i,
  /<title>\s*access denied\s*<\/title>/i,
  /\bverify(ing)? you are (a )?human\b/i,
];

// CAPTCHA widgets also sit on ordinary forms (a contact page's reCAPTCHA): a block only on a thin page.
const CAPTCHA_WIDGET_MARKERS: readonly RegExp[] = [/\bg-recaptcha\b/i, /\bh-captcha\b/i, /\bcf-turnstile\b/i, /\bcaptcha\b/i];

const APP_ROOTS = ['#root', '#app', '#__next', '#__nuxt', '#svelte', 'app-root', '[data-reactroot]', '[ng-app]'];

/**
 * Tells a blocked answer from a real one, for adaptive stealth (`mode=auto`). Pure: no I/O.
 */
export class BlockDetector {
  private readonly thinTextChars: number;

  constructor(options: BlockDetectorOptions = {}) {
    this.thinTextChars = options.thinTextChars ?? 200;
  }

  isBlocked(page: ObservedPage): boolean {
    return this.reason(page) !== undefined;
  }

  /**
   * Whether `page` is a challenge or CAPTCHA interstitial, whatever its status: {@link reason}'s
   * `challenge` alone. Parses the HTML only when a CAPTCHA widget is on it (to judge whether the
   * page is thin), so that ordinary pages cost a few regular expressions.
   */
  isChallenge(page: Omit<ObservedPage, 'status'>): boolean {
    if (!isHtml(page)) return false;
    if (CHALLENGE_MARKERS.some((marker) => marker.test(page.html))) return true;
    if (!CAPTCHA_WIDGET_MARKERS.some((marker) => marker.test(page.html))) return false;
    return this.reason({ ...page, status: 200 }) === 'challenge';
  }

  /** The reason `page` is blocked; undefined when it is a real answer. */
  reason(page: ObservedPage): BlockReason | undefined {
    if (BLOCKING_STATUSES.has(page.status)) return 'status';
    if (!isHtml(page)) return undefined;
    if (CHALLENGE_MARKERS.some((marker) => marker.test(page.html))) return 'challenge';
    // What follows needs the DOM, and finds a block only on a page with a CAPTCHA widget, or on an
    // unrendered page with a script: most pages a crawl opens have neither, and are not parsed.
    const widget = CAPTCHA_WIDGET_MARKERS.some((marker) => marker.test(page.html));
    if (!widget && (page.rendered || !/<script\b/i.test(page.html))) return undefined;
    // htmlparser2 rather than parse5: several times faster, and this is a heuristic on every attempt.
    const $ = load(boundNesting(page.html), { xml: { xmlMode: false, decodeEntities: true } });
    const hasNoscript = $('noscript').length > 0;
    const hasScript = $('script').length > 0;
    $('script, style, noscript, template').remove();
    // htmlparser2 adds no <body> to a fragment that has none: its text is then the whole document's.
    const body = $('body');
    const visibleText = (body.length > 0 ? body.text() : $.root().text()).replace(/\s+/g, ' ').trim();
    if (visibleText.length >= this.thinTextChars) return undefined;
    if (widget) return 'challenge';
    if (page.rendered || !hasScript) return undefined;
    const emptyAppRoot = APP_ROOTS.some((selector) => {
      const root = $(selector).first();
      return root.length > 0 && root.text().trim() === '';
    });
    return hasNoscript || emptyAppRoot ? 'needs_javascript' : undefined;
  }
}

function isHtml(page: Pick<ObservedPage, 'contentType' | 'html'>): boolean {
  if (page.contentType === undefined) return /^\s*</.test(page.html);
  return /\b(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType);
}
