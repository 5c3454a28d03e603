import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createWriteStream, mkdirSync, readFileSync, WriteStream } from 'node:fs';
import { randomInt } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import { FINISHED_RUN_STATUSES, messagingTopology } from '@trawl/contracts';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { createMigratedDatabase, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { fetchRequestBuckets } from '../../apps/fetch-worker/src/fetch-requests/kv-buckets';
import { ApiDocument } from './api-document';

export const SERVICES = ['gateway', 'crawl-coordinator', 'fetch-worker', 'scheduler', 'webhook-dispatcher'] as const;
export type ServiceName = (typeof SERVICES)[number];

// The repository root, from the TypeScript source (jest) or from its compiled copy under dist/ (bench).
const HERE = resolve(__dirname, '..', '..');
const ROOT = basename(HERE) === 'dist' ? resolve(HERE, '..') : HERE;
const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export interface PlatformOptions {
  /** EGRESS_HOST_MAP for the services (the fixture web's hosts). */
  hostMap: string;
  /** Extra environment per service (e.g. short leases for crash tests). */
  env?: Partial<Record<ServiceName | 'all', Record<string, string>>>;
  /** Services to start (default: all five). */
  services?: readonly ServiceName[];
  /** Processes per service (default 1): several replicas share the work like in a cluster. */
  replicas?: Partial<Record<ServiceName, number>>;
  /** NATS of the services (default `NATS_URL`, else loopback 4222): a suite's own server (`DisposableNats`). */
  natsUrl?: string;
  /** Postgres server the suite's database is made on (default `testServerUrl()`): a suite's own (`DisposablePostgres`). */
  databaseServerUrl?: string;
}

interface Running {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
  /** The gateway's operator surface (`ADMIN_PORT`): the admin API and `/metrics`. */
  adminPort?: number;
}

/**
 * A TCP port free on 127.0.0.1 right now (for a service started next with a port of its own), taken
 * below the kernel's ephemeral range: a port from that range can be handed to an outgoing
 * connection (a service's own pool to Postgres) between this check and the service's listen.
 */
export async function freePort(): Promise<number> {
  const ephemeralLow = ephemeralPortsFrom();
  const low = 10_000;
  if (Number.isInteger(ephemeralLow) && ephemeralLow > low + 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = low + randomInt(ephemeralLow - low);
      if (await canListen(port)) return port;
    }
  }
  return listenAndRelease(0);
}

/** The first port of Linux's ephemeral range; NaN where the kernel does not say (then the kernel picks). */
function ephemeralPortsFrom(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return NaN;
  }
}

async function canListen(port: number): Promise<boolean> {
  return listenAndRelease(port).then(
    () => true,
    () => false,
  );
}

async function listenAndRelease(port: number): Promise<number> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  const bound = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return bound;
}

/** How many times a service is started afresh when another process took its port first. */
const PORT_RACE_RETRIES = 3;
/** Characters of a starting service's output kept for the error when it dies. */
const STARTUP_OUTPUT_CHARS = 6_000;

/**
 * The whole platform for an end-to-end suite: its own database and NATS prefix, each service started
 * from dist/ as a separate process, speaking only over the public API. Logs go to
 * `test-output/<suite>/<service>.log`.
 */
export class Platform {
  readonly prefix = `e2e${uniqueSuffix()}`;
  /** Keyed by instance: the service name for replica 0, `<service>-<n>` for the others. */
  private readonly processes = new Map<string, Running>();
  private readonly logs = new Map<string, WriteStream>();
  private database?: TestDatabase;
  private logDir: string;

  constructor(
    suite: string,
    private readonly options: PlatformOptions,
  ) {
    this.logDir = join(ROOT, 'test-output', suite);
    mkdirSync(this.logDir, { recursive: true });
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.port('gateway')}`;
  }

  /** The gateway's operator surface: the admin API and its `/metrics`, never on the public port. */
  get adminUrl(): string {
    const adminPort = this.processes.get('gateway')?.adminPort;
    if (adminPort === undefined) throw new Error('gateway is not running');
    return `http://127.0.0.1:${adminPort}`;
  }

  /** Where an instance's `/metrics` is: the gateway's on its admin port, every other service's on its only one. */
  metricsUrl(instance: ServiceName | string): string {
    const running = this.processes.get(instance);
    if (!running) throw new Error(`${instance} is not running`);
    return `http://127.0.0.1:${running.adminPort ?? running.port}/metrics`;
  }

  port(instance: ServiceName | string): number {
    const running = this.processes.get(instance);
    if (!running) throw new Error(`${instance} is not running`);
    return running.port;
  }

  get natsUrl(): string {
    return this.options.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  }

  /** Status and body of an instance's `/readyz` (status 0 when it does not answer). */
  async readiness(instance: ServiceName | string): Promise<{ status: number; body: any }> {
    const res = await fetch(`http://127.0.0.1:${this.port(instance)}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(
      () => undefined,
    );
    if (!res) return { status: 0, body: undefined };
    return { status: res.status, body: await res.json().catch(() => undefined) };
  }

  get databaseUrl(): string {
    if (!this.database) throw new Error('platform not started');
    return this.database.url;
  }

  async start(): Promise<void> {
    this.database = await createMigratedDatabase(this.options.databaseServerUrl);
    // All at once, as a cluster starts its pods: no service may rely on another being up first
    // (each provisions the streams and consumers it uses), and a start is mostly loading modules.
    const starts: Promise<void>[] = [];
    for (const service of this.options.services ?? SERVICES) {
      for (let replica = 0; replica < (this.options.replicas?.[service] ?? 1); replica++) {
        starts.push(this.startService(service, replica));
      }
    }
    const outcomes = await Promise.allSettled(starts);
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async startService(service: ServiceName, replica = 0): Promise<void> {
    const instance = replica === 0 ? service : `${service}-${replica}`;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.startInstance(service, instance);
      if (outcome === 'ready') return;
      // Another process took a port between freePort and the service's listen: the harness's race,
      // not the service's fault, so the service is started again on other ports.
      if (/EADDRINUSE/.test(outcome.output) && attempt < PORT_RACE_RETRIES) continue;
      throw new Error(
        `${instance} exited with ${outcome.code} while starting (log in ${this.logDir}/${instance}.log); its last output:\n${outcome.output}`,
      );
    }
  }

  private async startInstance(service: ServiceName, instance: string): Promise<'ready' | { code: number | null; output: string }> {
    const port = await freePort();
    const adminPort = service === 'gateway' ? await freePort() : undefined;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: this.databaseUrl,
      NATS_URL: this.natsUrl,
      NATS_PREFIX: this.prefix,
      EGRESS_HOST_MAP: this.options.hostMap,
      ADMIN_TOKEN,
      PORT: String(port),
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
      // Proxy mode listens on its own port (8001 by default): suites side by side must not share it.
      ...(service === 'gateway' && { PROXY_MODE_PORT: '0', ADMIN_PORT: String(adminPort) }),
      ...this.options.env?.all,
      ...this.options.env?.[service],
    };
    let log = this.logs.get(instance);
    if (!log) {
      log = createWriteStream(join(this.logDir, `${instance}.log`), { flags: 'a' });
      this.logs.set(instance, log);
    }
    const child = spawn(
      process.execPath,
      ['-r', join(ROOT, 'tools', 'register-aliases.js'), join(ROOT, 'dist', 'apps', service, 'src', 'main.js')],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: false },
    );
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    // The last words of a start that fails, for its error; kept only until the service is up.
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-STARTUP_OUTPUT_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // 'close' rather than 'exit': by then the pipes are drained, so the tail holds the last words.
    const closed = once(child, 'close').then(() => child.exitCode);
    const exited = closed.then(() => undefined);
    this.processes.set(instance, { child, port, exited, adminPort });
    let starting = true;
    const ready = waitFor(
      async () => {
        if (!starting) return true;
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `${instance} to be ready` },
    ).catch((error: Error) => {
      throw new Error(`${error.message} (logs in ${this.logDir}/${instance}.log)`);
    });
    const outcome = await Promise.race([ready.then(() => 'ready' as const), closed.then((code) => ({ code }))]);
    starting = false;
    child.stdout?.off('data', keep);
    child.stderr?.off('data', keep);
    if (outcome === 'ready') return 'ready';
    await ready.catch(() => undefined);
    this.processes.delete(instance);
    return { code: outcome.code, output };
  }

  /** Kills one instance (SIGKILL by default: a crash, nothing handed back). */
  async kill(instance: ServiceName | string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const running = this.processes.get(instance);
    if (!running) return;
    running.child.kill(signal);
    await running.exited;
    this.processes.delete(instance);
  }

  /** Process id of an instance (for memory readings). */
  pid(instance: ServiceName | string): number | undefined {
    return this.processes.get(instance)?.child.pid;
  }

  async restart(service: ServiceName): Promise<void> {
    await this.kill(service);
    await this.startService(service);
  }

  async createTenant(body: Record<string, unknown> = {}): Promise<{ tenant_id: string; api_key: string }> {
    const res = await fetch(`${this.adminUrl}/admin/v1/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `tenant-${uniqueSuffix()}`, ...body }),
    });
    if (res.status !== 201) throw new Error(`tenant creation answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { tenant_id: string; api_key: string };
  }

  /** Changes a tenant's settings through the admin API (plan, standing, credits, key expiry). */
  async patchTenant(tenantId: string, body: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.adminUrl}/admin/v1/tenants/${tenantId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`tenant update answered ${res.status}: ${await res.text()}`);
  }

  /** A call of the admin API (operator token); the answer's status and JSON body. */
  async admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** A client of the public API for one tenant. */
  client(apiKey: string, options?: ApiClientOptions): ApiClient {
    return new ApiClient(this.gatewayUrl, apiKey, options);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((s) => this.kill(s, 'SIGTERM')));
    for (const log of this.logs.values()) log.end();
    const messaging = await MessagingConnection.connect({ servers: this.natsUrl, name: 'e2e-cleanup' });
    const topology = messagingTopology(this.prefix);
    await deleteStreams(messaging.jsm, Object.values(topology.streams));
    // The fetch workers' KV buckets (proxy sessions, adaptive stealth's domain tiers).
    await deleteStreams(
      messaging.jsm,
      Object.values(fetchRequestBuckets(this.prefix)).map((bucket) => `KV_${bucket}`),
    );
    await messaging.close();
    await this.database?.drop();
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiClientOptions {
  /**
   * Check every answer against the gateway's OpenAPI document (default true: a test's answers must
   * be documented ones). A benchmark turns it off: it measures Trawl, not the check.
   */
  checkAnswers?: boolean;
}

/** A benchmark's client: answers are not checked against the document (see `checkAnswers`). */
export const BENCHMARK_CLIENT: ApiClientOptions = { checkAnswers: false };

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
    private readonly options: ApiClientOptions = {},
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': this.apiKey,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    // Every answer is checked against the gateway's OpenAPI document, so the document cannot drift.
    const url = new URL(`${this.baseUrl}${path}`);
    if ((this.options.checkAnswers ?? true) && ApiDocument.isPublic(url.pathname)) {
      (await ApiDocument.forGateway(url.origin)).check(method.toUpperCase(), url, { status: res.status, headers: res.headers, bytes });
    }
    const text = bytes.toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (NDJSON, HTML)
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  startCrawl(body: Record<string, unknown>, headers?: Record<string, string>) {
    return this.request('POST', '/v1/crawls', body, headers);
  }

  getCrawl(id: string, query = '') {
    return this.request('GET', `/v1/crawls/${id}${query}`);
  }

  /** Waits until the job's latest run has finished (completed, stopped, failed) and returns the job. */
  async waitUntilRunEnded(jobId: string, timeoutMs = 60_000): Promise<any> {
    const finished: readonly string[] = FINISHED_RUN_STATUSES;
    return waitFor(
      async () => {
        const job = await this.request('GET', `/v1/jobs/${jobId}`);
        return finished.includes(job.body.latest_run?.status) ? job.body : undefined;
      },
      { timeoutMs, intervalMs: 250, what: `job ${jobId}'s run to end` },
    );
  }

  /** Waits until the crawl is no longer running and returns it. */
  async waitUntilEnded(id: string, timeoutMs = 60_000): Promise<any> {
    return waitFor(
      async () => {
        const res = await this.getCrawl(id, '?limit=1');
        return res.body.status !== 'running' ? res.body : undefined;
      },
      { timeoutMs, intervalMs: 100, what: `crawl ${id} to end` },
    );
  }

  /** Every result of a job's latest run, page by page with the cursor; throws on an answer other than 200. */
  async readAllJobResults(jobId: string): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await this.request(
        'GET',
        `/v1/jobs/${jobId}/results${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page.status !== 200) throw new Error(`results of job ${jobId} answered ${page.status}: ${page.text.slice(0, 300)}`);
      all.push(...page.body.results);
      cursor = page.body.next_cursor ?? null;
    } while (cursor);
    return all;
  }

  /** Reads every result with the cursor until `next_cursor` is null; fails on a URL returned twice. */
  async readAllResults(
    id: string,
    limit = 10_000,
    timeoutMs = 60_000,
  ): Promise<{ url: string; content_status?: string; content_url?: string }[]> {
    const results: any[] = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.getCrawl(id, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (res.status !== 200) throw new Error(`read answered ${res.status}: ${res.text}`);
      for (const r of res.body.results) {
        if (seen.has(r.url)) throw new Error(`URL returned twice: ${r.url}`);
        seen.add(r.url);
        results.push(r);
      }
      if (res.body.next_cursor === null) return results;
      cursor = res.body.next_cursor;
      if (Date.now() > deadline) throw new Error(`results of ${id} still not final after ${timeoutMs} ms`);
      if (res.body.results.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
  }
}
