import { load } from 'cheerio';
import { boundNesting } from '@trawl/extraction';

/** Why an answer counts as blocked (for logs, metrics and the REQS002 detail). */
export type BlockReason =
  /** 401, 403, 429 or 503: the usual answers of anti-bot services and WAFs. */
  | 'status'
  /**
   * A challenge or CAPTCHA interstitial (Cloudflare "Just a moment…", DataDome, PerimeterX/HUMAN,
   * Akamai, Imperva), said by the page or by a header; a short page asking its visitor to verify
   * they are human; or a thin page whose only script sets a cookie and reloads (a JavaScript check).
   */
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
  /**
   * The answer's headers (lower-case names), for the services that mark a challenge in a header
   * (Cloudflare's `cf-mitigated`, DataDome's `x-datadome`). Default: none.
   */
  headers?: Readonly<Record<string, string | string[]>>;
}

export interface BlockDetectorOptions {
  /**
   * A page with less visible text than this (in characters, whitespace collapsed) is "thin": a
   * CAPTCHA marker or a JS shell marker then means a block. Default: 200.
   */
  thinTextChars?: number;
  /**
   * A page with less visible text than this (in characters, whitespace collapsed) is "short": an
   * interstitial's wording that ordinary pages also use ("verify you are human") then means a
   * block. Default: 1,500.
   */
  shortTextChars?: number;
}

const BLOCKING_STATUSES = new Set([401, 403, 429, 503]);

/**
 * A pattern, and text every match of it contains (lower-case; matched ignoring case). All markers'
 * texts make one pattern (`ANY_MARKER_TEXT`) read over the page first: a page holding none of
 * them, as most pages do, is read once instead of once per marker (two dozen case-insensitive
 * patterns over every page a crawl opened were an eighth of a fetch worker's busy time).
 */
interface Marker {
  texts: readonly string[];
  pattern: RegExp;
}

const marker = (texts: string | readonly string[], pattern: RegExp): Marker => ({
  texts: typeof texts === 'string' ? [texts] : texts,
  pattern,
});

// Interstitials: these strings appear on challenge pages only, whatever their size.
const CHALLENGE_MARKERS: readonly Marker[] = [
  marker('just a moment', /<title>\s*just a moment\.*\s*<\/title>/i),
  marker('attention required', /<title>[^<]*attention required[^<]*<\/title>/i),
  // A challenge page loads its challenge from `orchestrate/`; Cloudflare's JavaScript detections
  // put a `challenge-platform/scripts/jsd/` script on ordinary pages too, which is no challenge.
  marker('/cdn-cgi/challenge-platform/', /\/cdn-cgi\/challenge-platform\/(?:h\/[a-z]\/)?orchestrate\//i),
  // `_cf_chl_opt` too: the challenge's own settings, on a page whose title is in the visitor's language.
  marker(['cf-chl', 'cf_chl'], /(?:\b|_)cf[-_]chl[-_]/i),
  marker('cf-browser-verification', /\bcf-browser-verification\b/i),
  marker('captcha-delivery.com', /captcha-delivery\.com/i),
  marker('px-captcha', /\bpx-captcha\b/i),
  marker('access denied', /<title>\s*access denied\s*<\/title>/i),
  // DataDome's interstitial declares its challenge in a `dd` object before loading its script.
  marker('var dd', /\bvar dd\s*=\s*\{\s*['"]rt['"]\s*:/i),
  // PerimeterX / HUMAN's block page.
  marker('access to this page has been denied', /<title>\s*access to this page has been denied\.?\s*<\/title>/i),
  // Akamai Bot Manager's challenge ("sec-cpt") and its edge refusal's error reference.
  marker('sec-if-cpt-container', /\bsec-if-cpt-container\b/i),
  marker('/_sec/cp_challenge/', /\/_sec\/cp_challenge\//i),
  marker('edgesuite', /errors(\.|&#46;)edgesuite(\.|&#46;)net/i),
  // Distil's (now Imperva's) interstitial.
  marker('pardon our interruption', /<title>\s*pardon our interruption\.*\s*<\/title>/i),
];

// Interstitials' wording that ordinary pages also use (an article on CAPTCHAs, a help page that
// explains one): a block only on a short page. A challenge's own text ("Verify you are human by
// completing the action below.", the host, why, a reference) stays far below the bound; an article
// quoting it does not.
const SHORT_PAGE_MARKERS: readonly Marker[] = [marker(['you are human', 'you are a human'], /\bverify(ing)? you are (a )?human\b/i)];

/**
 * A script that stores a cookie and then loads the page again: a JavaScript check, when nothing else
 * is on the page. The gap is bounded so that a page full of cookie writes costs a linear scan.
 */
const COOKIE_THEN_RELOAD = marker(
  'document.cookie',
  /document\.cookie\s*=[\s\S]{0,2000}?(location\.reload\s*\(|location\.replace\s*\(|location\.assign\s*\(|location(\.href)?\s*=[^=])/,
);

// CAPTCHA widgets also sit on ordinary forms (a contact page's reCAPTCHA), and HUMAN's app id and
// Imperva's resource script on every page those services guard: a block only on a thin page.
const CAPTCHA_WIDGET_MARKERS: readonly Marker[] = [
  marker('captcha', /\bg-recaptcha\b/i),
  marker('captcha', /\bh-captcha\b/i),
  marker('cf-turnstile', /\bcf-turnstile\b/i),
  marker('captcha', /\bcaptcha\b/i),
  marker('_pxappid', /\bwindow\._pxAppId\s*=/),
  marker('_incapsula_resource', /\b_Incapsula_Resource\b/),
];

const ANY_MARKER_TEXT = new RegExp(
  [...CHALLENGE_MARKERS, ...SHORT_PAGE_MARKERS, ...CAPTCHA_WIDGET_MARKERS, COOKIE_THEN_RELOAD]
    .flatMap((marker) => marker.texts)
    .map((text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|'),
  'i',
);

/** A page's HTML, read once for any marker's text before any marker is tried. */
class MarkedPage {
  private anyText: boolean | undefined;

  constructor(readonly html: string) {}

  has(marker: Marker): boolean {
    this.anyText ??= ANY_MARKER_TEXT.test(this.html);
    return this.anyText && marker.pattern.test(this.html);
  }

  hasAny(markers: readonly Marker[]): boolean {
    return markers.some((marker) => this.has(marker));
  }
}

const APP_ROOTS = ['#root', '#app', '#__next', '#__nuxt', '#svelte', 'app-root', '[data-reactroot]', '[ng-app]'];

/**
 * Text every JavaScript shell `reason` recognises holds: a `<noscript>`, or one of `APP_ROOTS` (an
 * id, an element or an attribute). A page with scripts and none of it is no shell, and is not
 * parsed to find out (most pages fetched without a browser have scripts).
 */
const JS_SHELL_TEXT = /<noscript|app-root|data-reactroot|ng-app|\bid\s*=\s*["']?(?:root|app|__next|__nuxt|svelte)\b/i;

/**
 * Tells a blocked answer from a real one, for adaptive stealth (`mode=auto`). Pure: no I/O.
 */
export class BlockDetector {
  private readonly thinTextChars: number;
  private readonly shortTextChars: number;

  constructor(options: BlockDetectorOptions = {}) {
    this.thinTextChars = options.thinTextChars ?? 200;
    this.shortTextChars = Math.max(this.thinTextChars, options.shortTextChars ?? 1_500);
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
    if (challengeHeader(page.headers)) return true;
    if (!isHtml(page)) return false;
    const marked = new MarkedPage(page.html);
    if (marked.hasAny(CHALLENGE_MARKERS)) return true;
    if (!marked.hasAny(CAPTCHA_WIDGET_MARKERS) && !marked.hasAny(SHORT_PAGE_MARKERS) && !marked.has(COOKIE_THEN_RELOAD)) return false;
    return this.reason({ ...page, status: 200 }) === 'challenge';
  }

  /** The reason `page` is blocked; undefined when it is a real answer. */
  reason(page: ObservedPage): BlockReason | undefined {
    // The header is the service's own word, whatever the status (Cloudflare sends it with 403 and 503).
    if (challengeHeader(page.headers)) return 'challenge';
    if (BLOCKING_STATUSES.has(page.status)) return 'status';
    if (!isHtml(page)) return undefined;
    const marked = new MarkedPage(page.html);
    if (marked.hasAny(CHALLENGE_MARKERS)) return 'challenge';
    // What follows needs the DOM, and finds a block only on a page with a CAPTCHA widget, an
    // interstitial's wording or a cookie-and-reload script, or on an unrendered page with a script:
    // most pages a crawl opens have none of these, and are not parsed.
    const widget = marked.hasAny(CAPTCHA_WIDGET_MARKERS);
    const wording = marked.hasAny(SHORT_PAGE_MARKERS);
    const reloads = marked.has(COOKIE_THEN_RELOAD);
    if (!widget && !wording && !reloads && (page.rendered || !/<script\b/i.test(page.html) || !JS_SHELL_TEXT.test(page.html))) {
      return undefined;
    }
    // htmlparser2 rather than parse5: several times faster, and this is a heuristic on every attempt.
    const $ = load(boundNesting(page.html), { xml: { xmlMode: false, decodeEntities: true } });
    const hasNoscript = $('noscript').length > 0;
    const hasScript = $('script').length > 0;
    $('script, style, noscript, template').remove();
    // htmlparser2 adds no <body> to a fragment that has none: its text is then the whole document's.
    const body = $('body');
    const visibleText = (body.length > 0 ? body.text() : $.root().text()).replace(/\s+/g, ' ').trim();
    if (wording && visibleText.length < this.shortTextChars) return 'challenge';
    if (visibleText.length >= this.thinTextChars) return undefined;
    // A rendered page still on its cookie check did not pass it (the reload would have replaced it).
    if (widget || reloads) return 'challenge';
    if (page.rendered || !hasScript) return undefined;
    const emptyAppRoot = APP_ROOTS.some((selector) => {
      const root = $(selector).first();
      return root.length > 0 && root.text().trim() === '';
    });
    return hasNoscript || emptyAppRoot ? 'needs_javascript' : undefined;
  }
}

/**
 * Whether a header says the answer is a challenge: Cloudflare's `cf-mitigated: challenge`, or
 * DataDome's `x-datadome` on an answer it blocked (`x-dd-b` names the block; DataDome sets
 * `x-datadome` on pages it let through as well, so that one alone does not count).
 */
function challengeHeader(headers: ObservedPage['headers']): boolean {
  if (!headers) return false;
  const value = (name: string) => {
    const raw = headers[name];
    return (Array.isArray(raw) ? raw.join(', ') : raw)?.trim().toLowerCase();
  };
  return value('cf-mitigated') === 'challenge' || (value('x-datadome') !== undefined && value('x-dd-b') !== undefined);
}

function isHtml(page: Pick<ObservedPage, 'contentType' | 'html'>): boolean {
  if (page.contentType === undefined) return /^\s*</.test(page.html);
  return /\b(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType);
}
