import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from '@trawl/testing';
import { bigSitePath, expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';

const ROOT = resolve(__dirname, '..', '..');
/** The CLI as a user runs it: the wrapper script, on the build in dist/. */
const TRAWL = join(ROOT, 'apps', 'cli', 'bin', 'trawl');
/** big.test pages 0…1,999: a crawl from `/` fetches 2,000 pages and keeps 1,999 URLs. */
const SITE_PAGES = 2_000;

/**
 * A tmux server of the suite's own (its own socket in the suite's directory, no user config), so
 * that the CLI runs in a real terminal and what it draws there can be read back; killing it touches
 * no one else's tmux.
 */
class Tmux {
  constructor(private readonly socket: string) {}

  private run(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Runs `command` in a new 200×50 terminal; the pane then shows `EXIT=<code>` and stays open to be read. */
  start(session: string, command: string, env: Record<string, string>): void {
    const variables = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    this.run('new-session', '-d', '-s', session, '-x', '200', '-y', '50', ...variables, `${command}; echo EXIT=$?; sleep 600`);
  }

  /** The text on the terminal's screen now. */
  screen(session: string): string {
    return this.run('capture-pane', '-p', '-t', session);
  }

  sendKeys(session: string, ...keys: string[]): void {
    this.run('send-keys', '-t', session, ...keys);
  }

  killServer(): void {
    try {
      this.run('kill-server');
    } catch {
      // no server was started
    }
  }
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The exit code a pane shows once the command ended, or undefined while it runs. */
function exitCodeOn(screen: string): number | undefined {
  const match = /^EXIT=(\d+)$/m.exec(screen);
  return match ? Number(match[1]) : undefined;
}

/** A progress line as drawn on the screen. */
interface ProgressReading {
  status: string;
  pagesFetched: number;
  items: number;
  failed: number;
  rate: number;
  elapsed: string;
}

const PROGRESS =
  /^(\w+) \| ([\d,]+) pages fetched \| ([\d,]+) items \| ([\d,]+) failed \| ([\d.,]+) pages\/s \| (\d+:\d\d(?::\d\d)?) elapsed$/m;

function progressOn(screen: string): ProgressReading | undefined {
  const match = PROGRESS.exec(screen);
  if (!match) return undefined;
  const number = (text: string) => Number(text.replace(/,/g, ''));
  return {
    status: match[1],
    pagesFetched: number(match[2]),
    items: number(match[3]),
    failed: number(match[4]),
    rate: number(match[5]),
    elapsed: match[6],
  };
}

/**
 * The `trawl` command line end to end: the built CLI against the platform's services as processes
 * and the fixture web. A 2,000-page crawl is followed in a real terminal (tmux), its progress line
 * read off the screen while it runs, and its NDJSON compared with the API's results.
 */
describe('trawl command line (e2e)', () => {
  let tmux: Tmux;
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let apiKey: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-cli-'));
    tmux = new Tmux(join(dir, 'tmux.sock'));
    web = await startFixtureWeb({ bigSitePages: SITE_PAGES });
    platform = new Platform('cli', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'fetch-worker', 'scheduler'],
      env: {
        all: { SECRETS_KEY: randomBytes(32).toString('base64') },
        // Fewer pages at a time than the default 64, so that the 2,000 pages take some seconds and
        // the progress line can be seen moving.
        'fetch-worker': { WORKER_CONCURRENCY: '8' },
      },
    });
    await platform.start();
    ({ api_key: apiKey } = await platform.createTenant({ max_active_jobs: 10, credits: 1_000_000 }));
    api = platform.client(apiKey);
  }, 120_000);

  afterAll(async () => {
    tmux?.killServer();
    await platform?.stop();
    await web?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** The CLI's environment: the tenant's key and the gateway, and a HOME without a config file. */
  function cliEnv(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      TRAWL_API_KEY: apiKey,
      TRAWL_BASE_URL: platform.gatewayUrl,
      ...overrides,
    };
  }

  /** Runs `trawl args…` as a script would (no terminal), to its end. */
  function trawl(args: string[], env: Record<string, string> = cliEnv()): Promise<CliRun> {
    return new Promise((resolvePromise) => {
      execFile(TRAWL, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? ((error as { code?: unknown }).code as number) : 0;
        resolvePromise({ code: typeof code === 'number' ? code : -1, stdout, stderr });
      });
    });
  }

  function ndjson(text: string): any[] {
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
  }

  const byUrl = (a: { url: string }, b: { url: string }) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);

  it("follows a 2,000-page crawl in a terminal with a live progress line, and writes the API's results as NDJSON", async () => {
    const session = 'crawl';
    const out = join(dir, 'crawl.ndjson');
    const seed = web.url('big.test', '/');
    tmux.start(session, `${TRAWL} crawl ${seed} --max-items ${SITE_PAGES} --max-pages ${SITE_PAGES} --follow --out ${out}`, cliEnv());

    const readings: ProgressReading[] = [];
    const screen = await waitFor(
      () => {
        const now = tmux.screen(session);
        const reading = progressOn(now);
        if (reading) readings.push(reading);
        return exitCodeOn(now) !== undefined && now;
      },
      { timeoutMs: 90_000, intervalMs: 50, what: 'trawl crawl --follow to end' },
    );

    const whileRunning = readings.filter((reading) => reading.status === 'running');
    const counts = new Set(whileRunning.map((reading) => reading.pagesFetched));
    console.log(`progress seen while running: ${whileRunning.length} readings, pages fetched ${[...counts].join(', ')}`);
    expect(counts.size).toBeGreaterThanOrEqual(2);
    // The counts only grow, and rate and elapsed time are drawn with them.
    const inOrder = whileRunning.map((reading) => reading.pagesFetched);
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
    expect(whileRunning.some((reading) => reading.rate > 0)).toBe(true);
    expect(whileRunning.every((reading) => /^\d+:\d\d/.test(reading.elapsed))).toBe(true);
    expect(exitCodeOn(screen)).toBe(0);
    // The line stays on screen with the final state.
    expect(progressOn(screen)).toMatchObject({ status: 'completed', pagesFetched: SITE_PAGES, items: SITE_PAGES - 1, failed: 0 });

    const crawlId = /crawl ([0-9a-f-]{36}) started/.exec(screen)?.[1];
    expect(crawlId).toEqual(expect.any(String));
    const written = ndjson(readFileSync(out, 'utf8'));
    const fromApi = await api.readAllResults(crawlId!);
    expect(written).toHaveLength(SITE_PAGES - 1);
    expect(new Set(written.map((result) => result.url)).size).toBe(written.length);
    expect([...written].sort(byUrl)).toEqual([...fromApi].sort(byUrl));
    expect(written.map((result) => result.url).sort()).toEqual(expected.big.allItems(web.port, SITE_PAGES).sort());
  }, 120_000);

  it('stops following on Ctrl-C with exit code 130, leaving the crawl running; trawl crawl stop stops it', async () => {
    const session = 'interrupt';
    // slow.test answers each page after 3 s: the crawl is still running when Ctrl-C comes.
    tmux.start(
      session,
      `${TRAWL} crawl ${web.url('slow.test', '/?ms=3000')} --max-items 1000 --max-pages 1000 --follow --out ${join(dir, 'slow.ndjson')}`,
      cliEnv(),
    );
    const started = await waitFor(() => /crawl ([0-9a-f-]{36}) started/.exec(tmux.screen(session))?.[1], {
      timeoutMs: 20_000,
      what: 'the crawl to start',
    });
    await waitFor(() => progressOn(tmux.screen(session)), { timeoutMs: 20_000, what: 'the progress line' });
    tmux.sendKeys(session, 'C-c');
    const screen = await waitFor(
      () => {
        const now = tmux.screen(session);
        return exitCodeOn(now) !== undefined && now;
      },
      { timeoutMs: 20_000, what: 'trawl to end after Ctrl-C' },
    );
    expect(exitCodeOn(screen)).toBe(130);
    expect(screen).toContain(`trawl: interrupted: stopped following crawl ${started}, which keeps running`);
    expect((await api.getCrawl(started, '?limit=1')).body.status).toBe('running');

    const stopped = await trawl(['crawl', 'stop', started, '--json']);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ crawl_id: started });
    expect((await api.waitUntilEnded(started, 30_000)).status).toBe('stopped');
  }, 60_000);

  it('fetches a page: its body on stdout or in --out, its credits with --json', async () => {
    const url = web.url('big.test', bigSitePath(7));
    const direct = await api.request('GET', `/v1/?url=${encodeURIComponent(url)}`);
    expect(direct.status).toBe(200);

    const toStdout = await trawl(['fetch', url]);
    expect(toStdout).toMatchObject({ code: 0, stderr: '' });
    expect(toStdout.stdout).toBe(direct.text);

    const out = join(dir, 'page.html');
    const toFile = await trawl(['fetch', url, '--out', out]);
    expect(toFile).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(out, 'utf8')).toBe(direct.text);

    const described = await trawl(['fetch', url, '--json']);
    expect(JSON.parse(described.stdout)).toMatchObject({ status: 200, credits: 1, encoding: 'utf8', body: direct.text });
  });

  it('exits 4 for a key the API does not know, naming the error code and never the key', async () => {
    const badKey = `trawl_${randomBytes(24).toString('hex')}`;
    const refused = await trawl(['usage'], cliEnv({ TRAWL_API_KEY: badKey }));
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^trawl: AUTH00\d: .+\n$/);
    expect(refused.stderr).not.toContain(badKey);

    const asJson = await trawl(['usage', '--json'], cliEnv({ TRAWL_API_KEY: badKey }));
    expect(asJson.code).toBe(4);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ status: 401, code: expect.stringMatching(/^AUTH00\d$/), exit_code: 4 });

    const none = await trawl(['usage'], cliEnv({ TRAWL_API_KEY: '' }));
    expect(none).toMatchObject({ code: 4, stderr: expect.stringContaining('trawl: no_api_key:') });
  });

  it('reads the key from the config file when the environment has none', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ api_key: apiKey, base_url: platform.gatewayUrl }));
    const env = cliEnv({ TRAWL_CONFIG: config });
    delete env.TRAWL_API_KEY;
    delete env.TRAWL_BASE_URL;
    const usage = await trawl(['usage', '--json'], env);
    expect(usage.code).toBe(0);
  });

  it("prints the account's usage as JSON with --json", async () => {
    const usage = await trawl(['usage', '--json']);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      credits_total: 1_000_000,
      credits_used: expect.any(Number),
      credits_left: expect.any(Number),
    });
    const forPeople = await trawl(['usage']);
    expect(forPeople.stdout).toMatch(/^Credits +[\d,]+ used of 1,000,000/);
  });

  // Two jobs run to their end and seven commands each start a Node process: past jest's default
  // 5 s on a busy machine (it once took longer in CI).
  it('submits a CSV as a batch job, watches the run to its end, and streams one result per task', async () => {
    const urls = [3, 4, 5, 6, 7].map((i) => web.url('big.test', bigSitePath(i)));
    const csv = join(dir, 'urls.csv');
    writeFileSync(csv, `url,sku\n${urls.map((url, i) => `${url},sku-${i}`).join('\n')}\n`);

    const submitted = await trawl(['batch', 'submit', csv, '--id-column', 'sku', '--watch', '--json']);
    expect(submitted).toMatchObject({ code: 0, stderr: '' });
    const job = JSON.parse(submitted.stdout);
    expect(job).toMatchObject({ task_count: 5, latest_run: { status: 'completed', stats: { total: 5, successful: 5, failed: 0 } } });

    const results = await trawl(['batch', 'results', job.job_id]);
    expect(results.code).toBe(0);
    const lines = ndjson(results.stdout);
    expect(lines).toHaveLength(job.task_count);
    expect(lines.map((line) => [line.url, line.external_id, line.status])).toEqual(urls.map((url, i) => [url, `sku-${i}`, 'successful']));

    const failed = await trawl(['batch', 'results', job.job_id, '--status', 'failed']);
    expect(failed).toMatchObject({ code: 0, stdout: '' });

    // Tracked: every page is new on a first run, so none changed.
    const tracked = JSON.parse((await trawl(['batch', 'submit', csv, '--changes', '--watch', '--json'])).stdout);
    const verdicts = ndjson((await trawl(['batch', 'results', tracked.job_id])).stdout);
    expect(verdicts.map((line) => line.change_status)).toEqual(urls.map(() => 'new'));
    expect(await trawl(['batch', 'results', tracked.job_id, '--changed'])).toMatchObject({ code: 0, stdout: '' });

    const plain = await trawl(['batch', 'submit', csv]);
    expect(plain.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
  }, 60_000);

  it("lists a site's URLs with trawl map: one per line, NDJSON with --json, a note when the limit cut the list", async () => {
    const site = web.url('maps.test', '/');
    const plain = await trawl(['map', site]);
    expect(plain).toEqual({
      code: 0,
      stdout: expected.maps
        .hostLinks(web.port)
        .map((url) => `${url}\n`)
        .join(''),
      stderr: '',
    });

    const searched = await trawl(['map', site, '--search', 'red shoes', '--json']);
    expect(searched.code).toBe(0);
    expect(ndjson(searched.stdout)).toEqual([
      { url: web.url('maps.test', '/shoes'), source: 'page', title: 'Red shoes' },
      { url: web.url('maps.test', '/blog/red-shoes-guide'), source: 'sitemap' },
    ]);

    const cut = await trawl(['map', site, '--limit', '2', '--sitemap', 'skip']);
    expect(cut).toEqual({
      code: 0,
      stdout: `${web.url('maps.test', '/')}\n${web.url('maps.test', '/about')}\n`,
      stderr: '2 of 5 URLs listed\n',
    });
    expect((await trawl(['map', web.url('gone.test', '/')])).stderr).toMatch(/^trawl: site_unreachable: /);
  });

  it('exits 2 for a usage error and 3 for a request the API refuses', async () => {
    expect(await trawl(['crawl'])).toMatchObject({ code: 2, stderr: "trawl: usage: missing required argument 'url' (see --help)\n" });
    expect((await trawl(['batch', 'submit', join(dir, 'missing.csv')])).code).toBe(2);
    const notFound = await trawl(['crawl', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(notFound).toMatchObject({ code: 3, stderr: expect.stringMatching(/^trawl: crawl_not_found: .+\(instance .+\)\n$/) });
  });

  it('prints completion scripts that bash, zsh and fish accept', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      if (spawnSync('which', [shell]).status !== 0) continue;
      const script = execFileSync(TRAWL, ['completion', shell], { encoding: 'utf8' });
      const file = join(dir, `completion.${shell}`);
      writeFileSync(file, script);
      const checked = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      expect({ shell, status: checked.status, stderr: checked.stderr }).toEqual({ shell, status: 0, stderr: '' });
    }
  });
});
