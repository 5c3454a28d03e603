import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { ProxyAgent, request } from 'undici';
import { CHROMIUM_FLAGS } from '../../apps/fetch-worker/src/browser/chromium-process';
import { spkiHashes } from '../../apps/fetch-worker/src/browser/trusted-keys';
import { readEngineVersion } from '../../apps/fetch-worker/src/identity';
import { allTells, PROBE_CONTEXTS, StealthProbe, type ProbeReport, type ProbeRun } from '../fixtures/stealth-probe';
import { makeLeafCert, startTlsFront, type FingerprintAnswer, type TlsFingerprint, type TlsFront } from '../fixtures/tls-front';
import { fixtureHostMap } from '../fixtures/web';
import { callFetchApi, creditsOf } from '../support/fetch-api-call';
import { freePort, Platform } from '../support/platform';
import { runCa } from '../support/run-ca';
import { uniqueSuffix, waitFor } from '@trawl/testing';

const PROBE_HOSTS = ['probe.test', 'probe-b.test', 'tls.test'];

const clean = Object.fromEntries(PROBE_CONTEXTS.map((context) => [context, []]));

/**
 * Stealth as a protected site sees it (issue 29), through the public Fetch API: a probe page that
 * runs BotD and the well-known headless checks in itself, its frames and workers, served over HTTP
 * and over HTTPS behind a TLS front that fingerprints every ClientHello (JA4) and HTTP/2 preface;
 * Chromium on this machine, measured in the same run, is the reference.
 */
describe('Stealth (e2e)', () => {
  const ca = runCa();
  const probe = new StealthProbe();
  const dir = mkdtempSync(join(tmpdir(), 'stealth-e2e-'));
  let http: Server;
  let httpPort: number;
  let front: TlsFront;
  let proxyPort: number;
  let platform: Platform;
  let apiKey: string;
  /** Chromium's own connections to the front, measured in this run. */
  let reference: TlsFingerprint[];
  let engineMajor: number;

  beforeAll(async () => {
    http = createServer(probe.handle);
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    httpPort = (http.address() as { port: number }).port;
    const leaf = makeLeafCert(ca, PROBE_HOSTS);
    // The chain holds the CA, whose key the worker's Chromium is told to accept (TLS_EXTRA_CA_FILE).
    front = await startTlsFront({ certPem: leaf.certPem + ca.certPem, keyPem: leaf.keyPem, handler: probe.handle });
    reference = await chromiumReference();
    engineMajor = (await readEngineVersion('/usr/bin/chromium')).major;
    proxyPort = await freePort();
    platform = new Platform('stealth', {
      hostMap: [fixtureHostMap(), ...PROBE_HOSTS.map((host) => `${host}=127.0.0.1`)].join(','),
      services: ['gateway', 'fetch-worker'],
      env: {
        gateway: { PROXY_MODE_PORT: String(proxyPort), PROXY_MODE_CA_CERT: ca.certFile, PROXY_MODE_CA_KEY: ca.keyPem },
        'fetch-worker': { BROWSERS: '1', PAGES_PER_BROWSER: '4', TLS_EXTRA_CA_FILE: ca.certFile },
      },
    });
    await platform.start();
    apiKey = (await platform.createTenant()).api_key;
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await front?.close();
    http?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** Chromium itself, launched here as the worker launches it, visiting the front three times. */
  async function chromiumReference(): Promise<TlsFingerprint[]> {
    const profile = mkdtempSync(join(dir, 'chromium-'));
    const browser = await puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      headless: false,
      userDataDir: profile,
      args: [
        ...CHROMIUM_FLAGS,
        '--host-resolver-rules=MAP tls.test 127.0.0.1',
        `--ignore-certificate-errors-spki-list=${spkiHashes(ca.certPem).join(',')}`,
      ],
    });
    try {
      front.reset();
      for (let i = 0; i < 3; i++) {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.goto(front.url('tls.test', `/fingerprint?visit=${i}`));
        await context.close();
      }
      return front.fingerprints().filter((connection) => connection.requests.some((request) => request.path.startsWith('/fingerprint')));
    } finally {
      await browser.close();
    }
  }

  const fetchApi = (params: Record<string, string>) => callFetchApi(platform, apiKey, params);

  /** The probe page's URL for a run, over HTTPS (the TLS front) or HTTP, its cross-site frame alike. */
  function probeUrl(run: string, secure: boolean, extra = ''): string {
    const origin = (host: string) => (secure ? `https://${host}:${front.port}` : `http://${host}:${httpPort}`);
    return `${origin('probe.test')}/probe.html?run=${run}&cross=${encodeURIComponent(origin('probe-b.test'))}${extra}`;
  }

  /** Renders the probe through the Fetch API and waits for every context's report. */
  async function probeRender(secure: boolean, params: Record<string, string> = { js_render: 'true' }): Promise<ProbeRun> {
    const run = `r${uniqueSuffix()}`;
    const answer = await fetchApi({ url: probeUrl(run, secure), wait_for: '#probe-done', ...params });
    expect({ status: answer.status, problem: answer.status === 200 ? undefined : answer.text }).toEqual({ status: 200 });
    return waitFor(() => (PROBE_CONTEXTS.every((context) => probe.run(run).reports[context]) ? probe.run(run) : undefined), {
      what: `every probe context of ${run}`,
    });
  }

  describe('js_render', () => {
    it('shows no headless tell over HTTPS: BotD says human in the page, both frames and their workers', async () => {
      const run = await probeRender(true);
      expect(allTells(run, true)).toEqual(clean);
      expect(run.reports.page?.botd?.verdict).toEqual({ bot: false });
    }, 60_000);

    it('shows none over HTTP either, where Chrome sends no client hints', async () => {
      expect(allTells(await probeRender(false), false)).toEqual(clean);
    }, 60_000);

    it('presents one identity in every context: agent, platform, cores, memory, languages, time zone, GPU', async () => {
      const run = await probeRender(true);
      const identityOf = (report: ProbeReport) => ({
        userAgent: report.userAgent,
        platform: report.platform,
        cores: report.hardwareConcurrency,
        memory: report.deviceMemory,
        languages: report.languages,
        timezone: report.timezone,
        gpu: report.webgl?.renderer,
        brands: report.userAgentData?.brands,
      });
      const page = identityOf(run.reports.page!);
      for (const context of PROBE_CONTEXTS) expect({ context, ...identityOf(run.reports[context]!) }).toEqual({ context, ...page });
      // The claim is the engine's own version.
      expect(page.userAgent).toContain(` Chrome/${engineMajor}.0.0.0 `);
    }, 60_000);

    it('leaves no DevTools trace: Runtime is never enabled, in the page, its frames or their workers', async () => {
      const run = await probeRender(true);
      expect(Object.fromEntries(PROBE_CONTEXTS.map((context) => [context, run.reports[context]?.leak]))).toEqual(
        Object.fromEntries(PROBE_CONTEXTS.map((context) => [context, false])),
      );
    }, 60_000);
  });

  it('in mode=auto, the browser tier past a wall shows no tell either, and the basic attempt costs nothing', async () => {
    const run = `r${uniqueSuffix()}`;
    // No wait_for: it needs js_render. The probe holds its load event until every context reported.
    const answer = await fetchApi({ url: probeUrl(run, true, '&walled=1&hold=1'), mode: 'auto' });
    expect([answer.status, creditsOf(answer)]).toEqual([200, 5]);
    const probed = await waitFor(() => (PROBE_CONTEXTS.every((context) => probe.run(run).reports[context]) ? probe.run(run) : undefined), {
      what: run,
    });
    expect(allTells(probed, true)).toEqual(clean);
  }, 60_000);

  it('in proxy mode, rendering shows no tell', async () => {
    const run = `r${uniqueSuffix()}`;
    const agent = new ProxyAgent({
      uri: `http://127.0.0.1:${proxyPort}`,
      token: `Basic ${Buffer.from(`${apiKey}:js_render=true&wait_for=%23probe-done`).toString('base64')}`,
      requestTls: { ca: ca.certPem },
    });
    try {
      const res = await request(probeUrl(run, true), { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await agent.close();
    }
    const probed = await waitFor(() => (PROBE_CONTEXTS.every((context) => probe.run(run).reports[context]) ? probe.run(run) : undefined), {
      what: run,
    });
    expect(allTells(probed, true)).toEqual(clean);
  }, 60_000);

  describe('basic engine', () => {
    async function basicFingerprint(params: Record<string, string> = {}): Promise<FingerprintAnswer> {
      const answer = await fetchApi({ url: front.url('tls.test', `/fingerprint?n=${uniqueSuffix()}`), ...params });
      expect(answer.status).toBe(200);
      return JSON.parse(answer.text) as FingerprintAnswer;
    }

    it("speaks Chrome's HTTP/2, with the preface Chromium on this machine sends", async () => {
      const basic = await basicFingerprint();
      expect(basic.alpnNegotiated).toBe('h2');
      expect(new Set(reference.map((connection) => connection.h2?.akamai))).toEqual(new Set([basic.h2?.akamai]));
    });

    it("sends Chromium's ClientHello but for two of Chrome 156's newest additions (the measured gap)", async () => {
      const basic = await basicFingerprint();
      const chromium = reference[0];
      const [, chromiumCiphers] = chromium.ja4.split('_');
      expect(basic.ja4.split('_')[1]).toBe(chromiumCiphers);
      const extensions = (fp: { ja4_r: string }) => fp.ja4_r.split('_')[2].split(',');
      const signatures = (fp: { ja4_r: string }) => fp.ja4_r.split('_')[3].split(',');
      // Beyond wreq's BoringSSL: trust anchor IDs (0xca34) and the ML-DSA signature schemes. The
      // assertion pins the gap, so a wider one fails; docs/decisions/stealth.md tracks closing it.
      expect(extensions(chromium).filter((id) => !extensions(basic).includes(id))).toEqual(['ca34']);
      expect(extensions(basic).filter((id) => !extensions(chromium).includes(id))).toEqual([]);
      expect(signatures(chromium).filter((id) => !['0904', '0905', '0906'].includes(id))).toEqual(signatures(basic));
    });

    it('sends client hints to https and never to http, as Chrome', async () => {
      const secure = await basicFingerprint();
      expect(secure.headers.map(([name]) => name)).toEqual(
        expect.arrayContaining(['sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'sec-fetch-site']),
      );
      const run = `r${uniqueSuffix()}`;
      expect((await fetchApi({ url: probeUrl(run, false) })).status).toBe(200);
      const names = probe.run(run).headers.page!.map(([name]) => name.toLowerCase());
      expect(names).toContain('user-agent');
      expect(names.filter((name) => name.startsWith('sec-'))).toEqual([]);
    });
  });

  describe('one identity per session', () => {
    /** What the basic engine's request said of the browser. */
    async function basicIdentity(session: string) {
      const answer = await fetchApi({ url: front.url('tls.test', `/fingerprint?n=${uniqueSuffix()}`), session_id: session });
      const headers = Object.fromEntries((JSON.parse(answer.text) as FingerprintAnswer).headers);
      return {
        userAgent: headers['user-agent'],
        brands: headers['sec-ch-ua'],
        platform: headers['sec-ch-ua-platform'],
        languages: headers['accept-language'],
      };
    }

    /** What the rendered page said of itself, and its navigation's headers. */
    async function renderedIdentity(session: string) {
      const run = await probeRender(true, { js_render: 'true', session_id: session });
      const page = run.reports.page!;
      const headers = Object.fromEntries(run.headers.page!.map(([name, value]) => [name.toLowerCase(), value]));
      return {
        userAgent: page.userAgent,
        brands: headers['sec-ch-ua'],
        platform: `"${page.userAgentData?.platform}"`,
        languages: headers['accept-language'],
      };
    }

    /** The whole device a rendered page sees: far more varied than the few things headers carry. */
    async function renderedDevice(session: string) {
      const page = (await probeRender(true, { js_render: 'true', session_id: session })).reports.page!;
      return JSON.stringify([
        page.userAgent,
        page.userAgentData?.platform,
        page.screen,
        page.hardwareConcurrency,
        page.deviceMemory,
        page.webgl?.renderer,
      ]);
    }

    it("presents the same browser to a site in a session's basic and rendered requests, and another in another session", async () => {
      const basic = await basicIdentity('7');
      expect(await renderedIdentity('7')).toEqual(basic);
      expect(basic.userAgent).toContain(` Chrome/${engineMajor}.0.0.0 `);
      // Two sessions' headers agree two times in three (most draws are Windows Chrome), so sessions
      // are compared on the device their pages see: two draws agree on it about once in 1,200
      // (measured over 4,000 draws), three others all agreeing with session 7 about once in 1e9.
      const [mine, ...others] = await Promise.all(['7', '8', '9', '10'].map((session) => renderedDevice(session)));
      expect(mine).toBe(await renderedDevice('7'));
      expect(others.some((other) => other !== mine)).toBe(true);
    }, 90_000);
  });
});
