/**
 * Stealth as a protected site sees it (issue 29): detector verdicts and TLS fingerprints of Trawl's
 * tiers beside what a user would run instead — a bare puppeteer-core launch and Node's own fetch —
 * with Chromium on this machine as the reference, all measured in one run. Prints a table with the
 * issue's verdicts (a missed one is printed as NOT MET, never hidden) and writes
 * bench/results/stealth.json.
 *
 *   node -r ./tools/register-aliases.js dist/bench/stealth-bench.js
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { Agent, request } from 'undici';
import { spkiHashes } from '../apps/fetch-worker/src/browser/trusted-keys';
import { readEngineVersion } from '../apps/fetch-worker/src/identity';
import { allTells, PROBE_CONTEXTS, StealthProbe, type ProbeRun } from '../test/fixtures/stealth-probe';
import { makeLeafCert, startTlsFront, type FingerprintAnswer, type TlsFront } from '../test/fixtures/tls-front';
import { Platform } from '../test/support/platform';
import { makeTestCa } from '../test/support/test-ca';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { table } from './report';

const HOSTS = ['probe.test', 'probe-b.test', 'tls.test'];

/** What one client showed the probe and the TLS front. */
interface Row {
  client: string;
  botd: string;
  /** Contexts (of 6) with at least one tell, and the tells themselves. */
  tells: string;
  runtimeTrace: string;
  ja4: string;
  h2: string;
}

interface Probed {
  run: ProbeRun;
  tellCount: number;
  tellText: string;
}

function summarise(run: ProbeRun, secure: boolean): Probed {
  const tells = allTells(run, secure);
  const bad = Object.entries(tells).filter(([, found]) => found.length > 0);
  return { run, tellCount: bad.length, tellText: bad.map(([context, found]) => `${context}: ${found.join('; ')}`).join(' / ') };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stealth-bench-'));
  const ca = makeTestCa();
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certPem);
  const probe = new StealthProbe();
  const http = createServer(probe.handle);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const httpPort = (http.address() as { port: number }).port;
  const leaf = makeLeafCert(ca, HOSTS);
  const front: TlsFront = await startTlsFront({ certPem: leaf.certPem + ca.certPem, keyPem: leaf.keyPem, handler: probe.handle });
  const probeUrl = (run: string, secure: boolean, extra = '') => {
    const origin = (host: string) => (secure ? `https://${host}:${front.port}` : `http://${host}:${httpPort}`);
    return `${origin('probe.test')}/probe.html?run=${run}&cross=${encodeURIComponent(origin('probe-b.test'))}${extra}`;
  };
  const reports = (run: string) =>
    waitFor(() => (PROBE_CONTEXTS.every((context) => probe.run(run).reports[context]) ? probe.run(run) : undefined), {
      what: run,
      timeoutMs: 30_000,
    });
  const fingerprint = async (visit: () => Promise<void>): Promise<{ ja4: string; h2: string }> => {
    front.reset();
    await visit();
    const connection = front.fingerprints().find((candidate) => candidate.requests.some((r) => r.path.startsWith('/fingerprint')));
    return { ja4: connection?.ja4 ?? '—', h2: connection?.h2?.akamai ?? (connection ? `no h2 (${connection.alpnNegotiated})` : '—') };
  };
  const rows: Row[] = [];
  let platform: Platform | undefined;
  let bare: Browser | undefined;
  try {
    // What a user would run instead: puppeteer-core launched as its documentation shows, nothing more.
    bare = await puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      userDataDir: mkdtempSync(join(dir, 'bare-')),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        `--host-resolver-rules=${HOSTS.map((h) => `MAP ${h} 127.0.0.1`).join(',')}`,
        `--ignore-certificate-errors-spki-list=${spkiHashes(ca.certPem).join(',')}`,
      ],
    });
    const bareRun = `bare${uniqueSuffix()}`;
    const barePage = await bare.newPage();
    await barePage.goto(probeUrl(bareRun, true));
    await barePage.waitForSelector('#probe-done', { timeout: 30_000 });
    const bareProbed = summarise(await reports(bareRun), true);
    const chromium = await fingerprint(async () => void (await barePage.goto(front.url('tls.test', '/fingerprint'))));
    await bare.close();
    bare = undefined;
    const botd = (probed: Probed) => {
      const verdict = probed.run.reports.page?.botd?.verdict;
      return verdict ? (verdict.bot ? `bot (${verdict.botKind})` : 'human') : 'no verdict';
    };
    rows.push({
      client: 'bare puppeteer-core',
      botd: botd(bareProbed),
      tells: `${bareProbed.tellCount}/6`,
      runtimeTrace: bareProbed.run.reports.page?.leak ? 'yes' : 'no',
      ...chromium,
    });

    const node = await fingerprint(async () => {
      const agent = new Agent({
        connect: { ca: ca.certPem, lookup: (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]) },
      });
      const res = await request(front.url('tls.test', '/fingerprint'), { dispatcher: agent });
      await res.body.dump();
      await agent.close();
    });
    rows.push({ client: "Node's fetch (undici)", botd: '—', tells: '—', runtimeTrace: '—', ...node });

    platform = new Platform('stealth-bench', {
      hostMap: HOSTS.map((host) => `${host}=127.0.0.1`).join(','),
      services: ['gateway', 'fetch-worker'],
      env: { gateway: { PROXY_MODE_ENABLED: 'false' }, 'fetch-worker': { BROWSERS: '1', TLS_EXTRA_CA_FILE: caFile } },
    });
    await platform.start();
    const { api_key: apiKey } = await platform.createTenant();
    const fetchApi = async (params: Record<string, string>) => {
      const res = await fetch(`${platform!.gatewayUrl}/v1/?${new URLSearchParams({ apikey: apiKey, ...params }).toString()}`);
      return { status: res.status, text: await res.text() };
    };
    const rendered = async (secure: boolean, params: Record<string, string>, extra = '') => {
      const run = `t${uniqueSuffix()}`;
      await fetchApi({ url: probeUrl(run, secure, extra), ...params });
      return summarise(await reports(run), secure);
    };
    const basic = await fetchApi({ url: front.url('tls.test', '/fingerprint') });
    const basicPrint = JSON.parse(basic.text) as FingerprintAnswer;
    const trawlTls = { ja4: basicPrint.ja4, h2: basicPrint.h2?.akamai ?? `no h2 (${basicPrint.alpnNegotiated})` };
    const https = await rendered(true, { js_render: 'true', wait_for: '#probe-done' });
    const plain = await rendered(false, { js_render: 'true', wait_for: '#probe-done' });
    // wait_for needs js_render: the probe holds its load event until every context reported.
    const auto = await rendered(true, { mode: 'auto' }, '&walled=1&hold=1');
    const trawlRow = (client: string, probed: Probed): Row => ({
      client,
      botd: botd(probed),
      tells: `${probed.tellCount}/6`,
      runtimeTrace: probed.run.reports.page?.leak ? 'yes' : 'no',
      ...trawlTls,
    });
    rows.push(
      trawlRow('Trawl js_render, https', https),
      trawlRow('Trawl js_render, http', plain),
      trawlRow('Trawl mode=auto (wall → browser)', auto),
    );

    const chromiumH2 = chromium.h2;
    const verdicts: [string, boolean, string][] = [
      [
        'BotD says human (js_render, mode=auto)',
        [https, plain, auto].every((p) => botd(p) === 'human'),
        [https, plain, auto].map(botd).join(', '),
      ],
      [
        'no headless tell in page, frames, workers',
        [https, plain, auto].every((p) => p.tellCount === 0),
        [https, plain, auto].map((p) => p.tellText || 'none').join(' | '),
      ],
      [
        'no Runtime.enable trace',
        !https.run.reports.page?.leak,
        https.run.reports.page?.leak ? 'puppeteer-core enables Runtime in every target' : 'none',
      ],
      ["basic engine's JA4 = Chromium's", trawlTls.ja4 === chromium.ja4, `${trawlTls.ja4} vs ${chromium.ja4}`],
      ["basic engine's HTTP/2 = Chromium's", trawlTls.h2 === chromiumH2, `${trawlTls.h2} vs ${chromiumH2}`],
    ];
    const engine = await readEngineVersion('/usr/bin/chromium');
    process.stdout.write(
      `\nStealth, measured in one run on this machine against Chromium ${engine.fullVersion}, every client on loopback\n\n`,
    );
    process.stdout.write(
      `${table(
        ['client', 'BotD', 'contexts with a tell', 'Runtime.enable trace', 'JA4', 'HTTP/2 (Akamai)'],
        rows.map((r) => [r.client, r.botd, r.tells, r.runtimeTrace, r.ja4, r.h2]),
      )}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['issue 29 target', 'verdict', 'measured'],
        verdicts.map(([name, met, measured]) => [name, met ? 'met' : 'NOT MET', measured]),
      )}\n`,
    );
    const results = resolve(__dirname, '..', '..', 'bench', 'results');
    mkdirSync(results, { recursive: true });
    writeFileSync(join(results, 'stealth.json'), JSON.stringify({ at: new Date().toISOString(), rows, verdicts }, null, 2));
  } finally {
    await bare?.close().catch(() => undefined);
    await platform?.stop().catch(() => undefined);
    await front.close();
    http.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
