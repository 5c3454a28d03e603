import { challengeSubmission, findCaptchaChallenge } from './captcha-challenge';

const form = (widget: string, extra = '') =>
  `<html><body><form method="post" action="/verify">
<input type="hidden" name="next" value="/shop"><input type="text" name="q" value="bread">
<input type="checkbox" name="remember" value="1"><input type="checkbox" name="terms" value="yes" checked>
<input type="submit" name="go" value="Go">${widget}${extra}</form></body></html>`;

describe(findCaptchaChallenge.name, () => {
  it.each([
    ['recaptcha', '<div class="g-recaptcha" data-sitekey="rk"></div>', 'g-recaptcha-response'],
    ['hcaptcha', '<div class="h-captcha" data-sitekey="rk"></div>', 'h-captcha-response'],
    ['turnstile', '<div class="cf-turnstile" data-sitekey="rk"></div>', 'cf-turnstile-response'],
  ])('finds a %s widget in a form, with the form’s fields', (widget, markup, responseField) => {
    expect(findCaptchaChallenge(form(markup), 'http://shop.test/gate?x=1')).toEqual({
      widget,
      sitekey: 'rk',
      action: 'http://shop.test/verify',
      method: 'POST',
      fields: [
        ['next', '/shop'],
        ['q', 'bread'],
        ['terms', 'yes'],
      ],
      responseField,
    });
  });

  it('finds nothing on a page without a sitekey, a widget outside a form, or a sitekey on another element', () => {
    expect(findCaptchaChallenge('<p>hello</p>', 'http://a.test/')).toBeUndefined();
    expect(findCaptchaChallenge('<div class="g-recaptcha" data-sitekey="k"></div>', 'http://a.test/')).toBeUndefined();
    expect(findCaptchaChallenge('<form><div data-sitekey="k"></div></form>', 'http://a.test/')).toBeUndefined();
  });

  it('posts to the page itself when the form has no action, and defaults to GET', () => {
    const challenge = findCaptchaChallenge('<form><div class="g-recaptcha" data-sitekey="k"></div></form>', 'http://a.test/gate');
    expect(challenge).toMatchObject({ action: 'http://a.test/gate', method: 'GET' });
  });
});

describe(challengeSubmission.name, () => {
  const challenge = {
    widget: 'recaptcha' as const,
    sitekey: 'k',
    action: 'http://a.test/verify?from=gate',
    method: 'POST' as const,
    fields: [['next', '/a b']] as [string, string][],
    responseField: 'g-recaptcha-response',
  };

  it('posts the form’s fields and the token, form-encoded', () => {
    const submission = challengeSubmission(challenge, 'tok&en');
    expect(submission.url).toBe('http://a.test/verify?from=gate');
    expect(submission.body?.toString()).toBe('next=%2Fa+b&g-recaptcha-response=tok%26en');
  });

  it('puts them in the query for a GET form', () => {
    expect(challengeSubmission({ ...challenge, method: 'GET' }, 't')).toEqual({
      url: 'http://a.test/verify?next=%2Fa+b&g-recaptcha-response=t',
      method: 'GET',
    });
  });
});
