import { BlockDetector, type ObservedPage } from './block-detector';

const ARTICLE = `<p>${'A real article with enough words to read. '.repeat(10)}</p>`;

function html(body: string, title = 'Shop'): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
}

function page(overrides: Partial<ObservedPage>): ObservedPage {
  return { status: 200, contentType: 'text/html; charset=utf-8', html: html(ARTICLE), rendered: false, ...overrides };
}

describe(BlockDetector.name, () => {
  const detector = new BlockDetector();

  describe('reason', () => {
    it('passes an ordinary page, rendered or not', () => {
      expect(detector.reason(page({}))).toBeUndefined();
      expect(detector.reason(page({ rendered: true }))).toBeUndefined();
      expect(detector.isBlocked(page({}))).toBe(false);
    });

    it.each([401, 403, 429, 503])('blocks status %i whatever the body', (status) => {
      expect(detector.reason(page({ status }))).toBe('status');
    });

    it.each([404, 410, 500, 502])('does not call status %i a block (not an anti-bot answer)', (status) => {
      expect(detector.reason(page({ status }))).toBeUndefined();
    });

    it.each([
      ['Cloudflare "Just a moment"', html('<div id="challenge"></div>', 'Just a moment...')],
      ['Cloudflare "Attention Required"', html(ARTICLE, 'Attention Required! | Cloudflare')],
      ['a challenge-platform script', html(`${ARTICLE}<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>`)],
      ['DataDome', html(`<script src="https://ct.captcha-delivery.com/c.js"></script>${ARTICLE}`)],
      ['an Akamai "Access Denied"', html('<h1>Access Denied</h1><p>Reference #18.1</p>', 'Access Denied')],
      ['a thin page with a reCAPTCHA', html('<form><div class="g-recaptcha" data-sitekey="k"></div></form>')],
      ['a thin page with Turnstile', html('<div class="cf-turnstile"></div><p>One more step</p>')],
      // Every marker, as its service writes it (case included): each is tried only where its text is.
      [
        'a Cloudflare challenge form',
        html(`${ARTICLE}<form id="challenge-form"><input type="hidden" name="cf_chl_seq_x" value="1"></form>`),
      ],
      ['a Cloudflare challenge widget', html(`${ARTICLE}<div id="cf-chl-widget-a1b2c"></div>`)],
      [
        'a Cloudflare challenge titled in German, by its settings',
        html(`<script>(function(){window._cf_chl_opt={cvId:'3',cZone:'shop.test',cType:'managed'};})();</script>`, 'Einen Moment…'),
      ],
      ['an old Cloudflare browser check', html(`<div class="cf-browser-verification cf-im-under-attack"></div>${ARTICLE}`)],
      ["HUMAN's captcha element", html(`${ARTICLE}<div id="px-captcha"></div>`)],
      ['"Verify you are human"', html(`<h2>Verify you are human by completing the action below.</h2>${ARTICLE}`)],
      ['"Verifying you are a human"', html(`<p>VERIFYING YOU ARE A HUMAN. This may take a few seconds.</p>${ARTICLE}`)],
      ["Akamai's challenge script", html(`${ARTICLE}<script src="/_sec/cp_challenge/sec-4-4.js"></script>`)],
      ["Distil's interstitial", html(ARTICLE, 'Pardon Our Interruption...')],
      ['a thin page with hCaptcha', html('<div class="h-captcha" data-sitekey="k"></div>')],
      ['a thin page naming a captcha', html('<p>Please solve the CAPTCHA to continue.</p>')],
    ])('blocks %s with status 200', (_what, body) => {
      expect(detector.reason(page({ html: body }))).toBe('challenge');
    });

    it.each([
      [
        "DataDome's interstitial",
        html(`<p id="cmsg">Please enable JS</p><script>var dd={'rt':'c','cid':'AHrlqAAAAAMA','host':'geo.captcha-delivery.com'}</script>`),
      ],
      ["HUMAN's block page", html('<div id="px-block"></div>', 'Access to this page has been denied')],
      ["HUMAN's app id on a thin page", html(`<div id="root"></div><script>window._pxAppId = 'PXu6b0qd2S';</script>`)],
      ["Akamai's sec-cpt challenge", html('<div id="sec-if-cpt-container" class="sec-if-cpt-container"></div>', 'Challenge Validation')],
      [
        "Akamai's edge refusal (entities)",
        html('Reference&#32;&#35;18&#46;2f3e<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18', 'Denied'),
      ],
      ["Imperva's interstitial", html('<iframe src="/_Incapsula_Resource?SWUDNSAI=31"></iframe>')],
      [
        'an empty page that sets a cookie and reloads',
        '<html><head><script>document.cookie = "js_ok=1; path=/"; location.reload();</script></head><body></body></html>',
      ],
      [
        'a thin page that sets a cookie and moves on',
        html('<script>document.cookie="k=v";window.location.href="/next"</script><p>Checking</p>'),
      ],
    ])('blocks %s', (_what, body) => {
      expect(detector.reason(page({ html: body }))).toBe('challenge');
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: false })).toBe(true);
    });

    it('blocks a rendered page still on its cookie check (the reload never replaced it)', () => {
      const body = '<html><head><script>document.cookie = "js_ok=1"; location.reload();</script></head><body></body></html>';
      expect(detector.reason(page({ html: body, rendered: true }))).toBe('challenge');
    });

    it.each([
      ["HUMAN's sensor", `<script>window._pxAppId = 'PXu6b0qd2S';</script>`],
      ["Imperva's resource script", '<script src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3"></script>'],
    ])('keeps a long page that %s guards (the service let it through)', (_what, script) => {
      expect(detector.reason(page({ html: html(`${ARTICLE}${script}`) }))).toBeUndefined();
    });

    it("keeps a page carrying Cloudflare's JavaScript detections (its challenge-platform script on ordinary pages)", () => {
      // As Cloudflare injects it into pages it lets through, in a hidden iframe's document.
      const jsd =
        "<script>(function(){function c(){var b=a.contentDocument||a.contentWindow.document;if(b){var d=b.createElement('script');" +
        "d.innerHTML=\"window.__CF$cv$params={r:'8f1e2d3c4b5a6978',t:'MTczMjk2MDAwMC4wMDAwMDA='};var a=document.createElement('script');" +
        "a.nonce='';a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.getElementsByTagName('head')[0].appendChild(a);\";" +
        "b.getElementsByTagName('head')[0].appendChild(d)}}})();</script>";
      for (const body of [
        html(`${ARTICLE}${jsd}`),
        html(`${ARTICLE}<script src="/cdn-cgi/challenge-platform/h/g/scripts/jsd/1a2b/main.js"></script>`),
      ]) {
        expect(detector.reason(page({ html: body }))).toBeUndefined();
        expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: true })).toBe(false);
      }
    });

    it('keeps a long page whose script sets a cookie and navigates (an ordinary consent banner)', () => {
      const body = html(`${ARTICLE}<script>function ok(){ document.cookie = "consent=1"; location.reload(); }</script>`);
      expect(detector.reason(page({ html: body }))).toBeUndefined();
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: false })).toBe(false);
    });

    it.each([
      ['cf-mitigated: challenge', { 'cf-mitigated': 'Challenge' }, 403],
      ['cf-mitigated: challenge on a 200', { 'cf-mitigated': 'challenge' }, 200],
      ["DataDome's block headers", { 'x-datadome': 'protected', 'x-dd-b': '1' }, 200],
    ])('calls %s a challenge by its header, whatever the body', (_what, headers, status) => {
      expect(detector.reason(page({ status, headers }))).toBe('challenge');
      expect(detector.isChallenge({ contentType: 'application/json', html: '{}', rendered: true, headers })).toBe(true);
    });

    it("does not call DataDome's x-datadome alone a block (it marks pages it let through too)", () => {
      expect(detector.reason(page({ headers: { 'x-datadome': 'protected' } }))).toBeUndefined();
    });

    it('keeps a long page whose contact form carries a reCAPTCHA', () => {
      const body = html(`${ARTICLE}<form><div class="g-recaptcha" data-sitekey="k"></div></form>`);
      expect(detector.reason(page({ html: body }))).toBeUndefined();
    });

    it.each([
      ['a <noscript> notice', '<noscript>You need to enable JavaScript</noscript><script src="/app.js"></script>'],
      ['an empty React root', '<div id="root"></div><script src="/static/js/main.js"></script>'],
      ['an empty Next.js root', '<div id="__next">  </div><script>self.__next_f=[]</script>'],
      ['an Angular root', '<app-root></app-root><script src="main.js"></script>'],
      ['an empty Vue app root', '<div id=\'app\'></div><script src="/js/app.js"></script>'],
      ['a <NOSCRIPT> in capitals', '<NOSCRIPT>Enable JavaScript</NOSCRIPT><SCRIPT src="/app.js"></SCRIPT>'],
    ])('says a non-rendered page with %s needs JavaScript', (_what, body) => {
      expect(detector.reason(page({ html: html(body) }))).toBe('needs_javascript');
    });

    it('does not call a thin page with scripts a JavaScript shell when it has no <noscript> and no app root', () => {
      expect(detector.reason(page({ html: html('<p>Hello.</p><script src="/analytics.js"></script>') }))).toBeUndefined();
      expect(detector.reason(page({ html: html('<div id="rooted"></div><script src="/a.js"></script>') }))).toBeUndefined();
    });

    it('never says a rendered page needs JavaScript (rendering already happened)', () => {
      const body = html('<div id="root"></div><noscript>Enable JavaScript</noscript><script src="/app.js"></script>');
      expect(detector.reason(page({ html: body, rendered: true }))).toBeUndefined();
    });

    it('keeps a short page without scripts, and a JS app whose root has content', () => {
      expect(detector.reason(page({ html: html('<p>Coming soon.</p>') }))).toBeUndefined();
      const rendered = html(`<div id="root">${ARTICLE}</div><noscript>Enable JavaScript</noscript><script src="/a.js"></script>`);
      expect(detector.reason(page({ html: rendered }))).toBeUndefined();
    });

    it('does not inspect bodies that are not HTML', () => {
      expect(detector.reason(page({ contentType: 'application/json', html: '{"captcha":"Just a moment"}' }))).toBeUndefined();
      expect(detector.reason(page({ contentType: 'text/plain', html: '<title>Just a moment...</title>' }))).toBeUndefined();
    });

    it('keeps a long page that quotes an interstitial ("verify you are human") in its text', () => {
      const body = html(
        `<h1>Why sites ask you to verify you are human</h1>${ARTICLE.repeat(4)}<p>When a page says "Verifying you are a human", wait.</p>`,
        'CAPTCHAs explained',
      );
      expect(detector.reason(page({ html: body }))).toBeUndefined();
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: false })).toBe(false);
    });

    it("blocks an interstitial's wording on a short page, in a rendered page too", () => {
      // Cloudflare's managed challenge without its settings script: host, request, reason, reference.
      const body = html(
        '<h1>shop.test</h1><h2>Verify you are human by completing the action below.</h2>' +
          '<p>shop.test needs to review the security of your connection before proceeding.</p><p>Ray ID: 8f1e2d3c4b5a6978</p>',
        'shop.test',
      );
      expect(detector.reason(page({ html: body }))).toBe('challenge');
      expect(detector.reason(page({ html: body, rendered: true }))).toBe('challenge');
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: true })).toBe(true);
    });

    it("counts visible text against shortTextChars for an interstitial's wording", () => {
      const body = html('<p>Verify you are human.</p>');
      expect(new BlockDetector({ thinTextChars: 10, shortTextChars: 22 }).reason(page({ html: body }))).toBe('challenge');
      expect(new BlockDetector({ thinTextChars: 10, shortTextChars: 21 }).reason(page({ html: body }))).toBeUndefined();
    });

    it('counts visible text against thinTextChars', () => {
      const body = html('<p>0123456789</p><div class="g-recaptcha"></div>');
      expect(new BlockDetector({ thinTextChars: 11 }).reason(page({ html: body }))).toBe('challenge');
      expect(new BlockDetector({ thinTextChars: 10 }).reason(page({ html: body }))).toBeUndefined();
    });
  });

  describe('isChallenge', () => {
    it.each([
      ['a Cloudflare interstitial', html('<div id="challenge"></div>', 'Just a moment...'), true],
      ['a thin page with a reCAPTCHA', html('<form><div class="g-recaptcha" data-sitekey="k"></div></form>'), true],
      ['a long page whose form carries a reCAPTCHA', html(`${ARTICLE}<div class="g-recaptcha"></div>`), false],
      ['an ordinary page', html(ARTICLE), false],
      ['an empty JS shell (needs JavaScript, not a challenge)', html('<div id="root"></div><script src="/a.js"></script>'), false],
    ])('judges %s by its content alone', (_what, body, expected) => {
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: false })).toBe(expected);
      expect(detector.isChallenge({ contentType: 'text/html', html: body, rendered: true })).toBe(expected);
    });

    it('does not inspect bodies that are not HTML', () => {
      expect(detector.isChallenge({ contentType: 'application/json', html: '<title>Just a moment...</title>', rendered: false })).toBe(
        false,
      );
    });
  });
});
