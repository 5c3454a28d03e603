import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { fetchFailureOf } from '../src/fetch-requests/fetch-failures';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserErrorCode } from '../src/browser/browser.errors';
import { BrowserPool } from '../src/browser/browser-pool';
import { renderPage } from '../src/browser/render-page';
import { testIdentity } from '../src/identity/identity.test-support';

jest.setTimeout(60_000);

/** A rendered page may not make the worker or Chromium hold an unbounded download (BROWSER_MAX_PAGE_BYTES). */
describe('rendering under a download limit (512 KiB)', () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;
  let pool: BrowserPool;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 1 });
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }), maxBytesPerRequest: 512 * 1024 });
    pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 2 });
    await pool.start();
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await web?.close();
  });

  const render = (url: string) => {
    const deadlineAt = Date.now() + 30_000;
    return pool.withPage({ deadlineAt, reuseKey: 'limit-tests' }, (lease) =>
      renderPage(
        lease,
        { url, method: 'GET', headers: {}, options: { json_response: false }, deadlineAt, identity: testIdentity() },
        { loadGraceMs: 3_000 },
      ),
    );
  };

  it('answers RESP005 for a page past the limit, and renders the next page of the same tenant', async () => {
    const error = await render(web.url('echo.test', '/big?kib=4096')).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: BrowserErrorCode.TooLarge });
    expect(fetchFailureOf(error, web.url('echo.test', '/big?kib=4096'))).toMatchObject({ code: 'RESP005' });
    const small = await render(web.url('echo.test', '/big?kib=64'));
    expect(small.status).toBe(200);
    expect(small.html.length).toBeGreaterThan(60 * 1024);
  });
});
