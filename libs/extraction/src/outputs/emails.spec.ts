import { parsePage } from '../parsed-page';
import { extractEmails } from './emails';

const emailsOf = (html: string): string[] => extractEmails(parsePage(html, 'https://shop.test/contact'));

describe(extractEmails.name, () => {
  it('finds addresses in mailto links and in text, unique, in order of first appearance', () => {
    const html = `<footer><p>Write to <a href="mailto:Sales@Shop.TEST?subject=Hi%20there">our sales team</a>
      or support@shop.test. Press: press@news.shop.test, (jobs@shop.test); again sales@shop.test.</p>
      <a href="mailto:a%40shop.test,b@shop.test">Both</a></footer>`;
    expect(emailsOf(html)).toEqual([
      'Sales@shop.test',
      'a@shop.test',
      'b@shop.test',
      'support@shop.test',
      'press@news.shop.test',
      'jobs@shop.test',
    ]);
  });

  it("decodes Cloudflare's e-mail obfuscation", () => {
    const hex = '422a272e2e2d02312a2d326c36273136';
    const html = `<p><a href="/cdn-cgi/l/email-protection" class="__cf_email__" data-cfemail="${hex}">[email&#160;protected]</a>
      <a href="/cdn-cgi/l/email-protection#${hex}">Mail</a><span data-cfemail="zz"></span></p>`;
    expect(emailsOf(html)).toEqual(['hello@shop.test']);
  });

  it('ignores image names, handles, scripts and broken addresses', () => {
    const html = `<img src="logo@2x.png"><p>logo@2x.png @shop user@ a@b @@x name@host</p>
      <script>var e = "hidden@shop.test";</script><a href="mailto:">empty</a>`;
    expect(emailsOf(html)).toEqual([]);
  });

  // A backtracking pattern would take minutes here; the test's timeout is the guard, not a speed goal.
  it('finds nothing in long runs of text without separators', () => {
    expect(emailsOf(`<p>${'a'.repeat(200_000)}@${'b'.repeat(200_000)}</p>`)).toEqual([]);
  }, 30_000);
});
