import { load } from 'cheerio';
import { boundNesting } from '@trawl/extraction';

/** The CAPTCHA widgets recognised, by the markup their scripts need. */
export type CaptchaWidget = 'recaptcha' | 'hcaptcha' | 'turnstile';

/** A CAPTCHA challenge found on a page, with the form its token is submitted with. */
export interface CaptchaChallenge {
  widget: CaptchaWidget;
  sitekey: string;
  /** Where the form posts, absolute. */
  action: string;
  method: 'GET' | 'POST';
  /** The form's own fields (hidden inputs and other named inputs with a value), in order. */
  fields: [string, string][];
  /** The form field each widget's script fills with the token. */
  responseField: string;
}

const RESPONSE_FIELDS: Record<CaptchaWidget, string> = {
  recaptcha: 'g-recaptcha-response',
  hcaptcha: 'h-captcha-response',
  turnstile: 'cf-turnstile-response',
};

/** Class of each widget's container (the markup the vendors document). */
const WIDGET_CLASSES: [CaptchaWidget, string][] = [
  ['recaptcha', 'g-recaptcha'],
  ['hcaptcha', 'h-captcha'],
  ['turnstile', 'cf-turnstile'],
];

/**
 * Finds a reCAPTCHA v2, hCaptcha or Turnstile widget (an element with `data-sitekey` and the
 * widget's class) inside a form. A widget outside any form is not reported: there is no way to
 * hand its token back without running the page's own script.
 *
 * @param html the page
 * @param pageUrl the page's URL, to resolve the form's action
 */
export function findCaptchaChallenge(html: string, pageUrl: string): CaptchaChallenge | undefined {
  // Cheap test first: most pages have no sitekey at all and need no parse.
  if (!html.includes('data-sitekey')) return undefined;
  const $ = load(boundNesting(html));
  for (const [widget, className] of WIDGET_CLASSES) {
    const element = $(`.${className}[data-sitekey]`).first();
    if (element.length === 0) continue;
    const sitekey = element.attr('data-sitekey')?.trim();
    const form = element.closest('form');
    if (!sitekey || form.length === 0) continue;
    const fields: [string, string][] = [];
    form.find('input[name]').each((_i, input) => {
      const type = ($(input).attr('type') ?? 'text').toLowerCase();
      const value = $(input).attr('value');
      if (type === 'submit' || type === 'button' || type === 'file' || value === undefined) return;
      if ((type === 'checkbox' || type === 'radio') && $(input).attr('checked') === undefined) return;
      fields.push([$(input).attr('name') as string, value]);
    });
    let action: string;
    try {
      action = new URL(form.attr('action') ?? '', pageUrl).href;
    } catch {
      continue;
    }
    const method = (form.attr('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET';
    return { widget, sitekey, action, method, fields, responseField: RESPONSE_FIELDS[widget] };
  }
  return undefined;
}

/**
 * The request that hands the token back the way the widget's script would: the form's fields plus
 * the response field, form-encoded in the body (POST) or the query (GET).
 */
export function challengeSubmission(challenge: CaptchaChallenge, token: string): { url: string; method: 'GET' | 'POST'; body?: Buffer } {
  const form = new URLSearchParams(challenge.fields);
  form.set(challenge.responseField, token);
  if (challenge.method === 'POST') return { url: challenge.action, method: 'POST', body: Buffer.from(form.toString(), 'utf8') };
  const url = new URL(challenge.action);
  url.search = form.toString();
  return { url: url.href, method: 'GET' };
}
