/**
 * `make run`: the whole platform in the foreground until Ctrl-C — the five services as processes,
 * the fixture web (so there is something to crawl offline), and a demo tenant whose API key is printed.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig } from '@trawl/config';

const ROOT = resolve(__dirname, '..', '..');
const config = loadConfig(
  z.object({
    PORT: z.coerce.number().int().default(8080),
    ADMIN_PORT: z.coerce.number().int().default(8085),
    ADMIN_TOKEN: z.string().min(16).default('dev-admin-token-change-me'),
    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/trawl'),
    NATS_URL: z.string().default('nats://127.0.0.1:4222'),
    EGRESS_HOST_MAP: z.string().optional(),
    FIXTURE_PORT: z.coerce.number().int().default(8090),
    SECRETS_KEY: z.string().optional(),
  }),
);

/**
 * The key that seals webhook signing secrets and CAPTCHA solver keys. Without one, signing keys
 * cannot be made and the local platform could not show signed webhooks; a key made here is kept in
 * `.trawl-local/` (git-ignored) so what it sealed still opens after a restart. A development key:
 * a cluster gets its own from a Secret.
 */
function localSecretsKey(): string {
  if (config.SECRETS_KEY) return config.SECRETS_KEY;
  const file = join(ROOT, '.trawl-local', 'secrets-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(join(ROOT, '.trawl-local'), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

const children: ChildProcess[] = [];
let stopping = false;

function start(name: string, script: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  const child = spawn(process.execPath, ['-r', join(ROOT, 'tools', 'register-aliases.js'), join(ROOT, 'dist', script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) process.stdout.write(`[${name}] ${line}\n`);
  });
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`${name} exited with ${code}; stopping the platform\n`);
      void shutdown(1);
    }
  });
  children.push(child);
  return child;
}

async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  process.exit(code);
}

async function main(): Promise<void> {
  const fixture = start('fixture-web', 'test/fixtures/web/main.js', {}, ['--port', String(config.FIXTURE_PORT)]);
  const fixtureInfo = await new Promise<{ port: number; hostMap: string }>((resolvePort, reject) => {
    fixture.stdout?.once('data', (chunk: Buffer) => {
      try {
        resolvePort(JSON.parse(chunk.toString().split('\n')[0]));
      } catch (error) {
        reject(error);
      }
    });
  });
  const hostMap = config.EGRESS_HOST_MAP ?? fixtureInfo.hostMap;
  const common = {
    DATABASE_URL: config.DATABASE_URL,
    NATS_URL: config.NATS_URL,
    EGRESS_HOST_MAP: hostMap,
    ADMIN_TOKEN: config.ADMIN_TOKEN,
    SECRETS_KEY: localSecretsKey(),
  };
  const services: [string, number][] = [
    ['gateway', config.PORT],
    ['crawl-coordinator', 8081],
    ['fetch-worker', 8082],
    ['scheduler', 8083],
    ['webhook-dispatcher', 8084],
  ];
  for (const [name, port] of services) {
    start(name, `apps/${name}/src/main.js`, {
      ...common,
      PORT: String(port),
      ...(name === 'gateway' && { ADMIN_PORT: String(config.ADMIN_PORT) }),
    });
  }
  for (const [, port] of services) await waitReady(`http://127.0.0.1:${port}/readyz`);

  const admin = `http://127.0.0.1:${config.ADMIN_PORT}`;
  const res = await fetch(`${admin}/admin/v1/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'demo' }),
  });
  const tenant = (await res.json()) as { api_key: string; tenant_id: string };
  const api = `http://127.0.0.1:${config.PORT}`;
  process.stdout.write(`
Trawl is running: API ${api}   (Ctrl-C stops everything)
Admin API and the gateway's /metrics: ${admin} (Authorization: Bearer $ADMIN_TOKEN)
Demo tenant ${tenant.tenant_id}
  API key: ${tenant.api_key}

Try the command line on the local fixture site (in another terminal):
  export TRAWL_API_KEY=${tenant.api_key} TRAWL_BASE_URL=${api}
  apps/cli/bin/trawl crawl http://big.test:${fixtureInfo.port}/ --max-items 500 --max-pages 500 --follow --out results.ndjson
  apps/cli/bin/trawl fetch http://rules.test:${fixtureInfo.port}/ --markdown

or curl:
  curl -s -X POST ${api}/v1/crawls -H 'X-API-Key: ${tenant.api_key}' -H 'content-type: application/json' \\
       -d '{"url": "http://rules.test:${fixtureInfo.port}/", "max_items": 50}'
  curl -s '${api}/v1/crawls/<crawl_id>' -H 'X-API-Key: ${tenant.api_key}'

`);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
main().catch((error: unknown) => {
  process.stderr.write(`make run failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void shutdown(1);
});
