import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserPool } from '../src/browser/browser-pool';
import { renderPage } from '../src/browser/render-page';
import { testIdentity } from '../src/identity/identity.test-support';

jest.setTimeout(60_000);

/**
 * WebRTC is the one way out of a page that no proxy carries: ICE sends UDP (STUN) straight from
 * the worker's interfaces, past the egress policy, and tells the target the worker's own address
 * (defeating a premium proxy). Chromium must not send any.
 */
describe('WebRTC in rendered pages', () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  let stun: Socket;
  const received: string[] = [];

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 1 });
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }), connectTimeoutMs: 2_000 });
    pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 2 });
    await pool.start();
    stun = createSocket('udp4');
    stun.on('message', (_message, from) => received.push(`${from.address}:${from.port}`));
    await new Promise<void>((resolve) => stun.bind(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await web?.close();
    stun?.close();
  });

  it('sends no UDP to a STUN server the page names', async () => {
    const port = (stun.address() as AddressInfo).port;
    // Gathers candidates against the STUN server for up to 3 s, and tells how many it saw.
    const gather = `new Promise((resolve) => {
      const peer = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] });
      peer.createDataChannel('leak');
      const seen = [];
      peer.onicecandidate = (event) => { if (event.candidate) seen.push(event.candidate.candidate); else resolve(seen.length); };
      peer.createOffer().then((offer) => peer.setLocalDescription(offer));
      setTimeout(() => resolve(seen.length), 3000);
    })`;
    const deadlineAt = Date.now() + 30_000;
    const page = await pool.withPage({ deadlineAt }, (lease) =>
      renderPage(
        lease,
        {
          url: web.url('js.test', '/'),
          method: 'GET',
          headers: {},
          options: { json_response: false, js_instructions: [{ evaluate: gather }] },
          deadlineAt,
          identity: testIdentity(),
        },
        { stepTimeoutMs: 5_000, loadGraceMs: 3_000 },
      ),
    );
    expect(page.instructionsReport?.instructions[0]).toMatchObject({ success: true });
    expect(received).toEqual([]);
  });
});
