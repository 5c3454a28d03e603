import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TrawlClient, verifyWebhook } from '@trawl/sdk';
import { waitFor } from '@trawl/testing';
import { Background, Kube, ok, portForward, relayInto, run } from './kube';
import { checkMonitoring } from './monitoring-check';
import {
  batchProgress,
  crawlProgress,
  expectWholeBatch,
  expectWholeSite,
  fetchLoad,
  HOOKS,
  SITE,
  siteUrls,
  startBatch,
  startSiteCrawl,
} from './workloads';

/**
 * The cluster proof's steps, run against a node started by proof.sh with the images it imported:
 * Postgres, NATS and the test web in the cluster, the chart installed with its hooks, then work
 * through the gateway's Service while pods are deleted, upgraded, rolled back and scaled. Each step
 * prints its time and verdict; the first failure stops the run (later steps build on earlier ones).
 */

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const HERE = join(ROOT, 'deploy', 'cluster');
const NAMESPACE = 'trawl';
const RELEASE = 'trawl';

const env = {
  toolsDir: required('TOOLS_DIR'),
  kubeconfig: required('KUBECONFIG_FILE'),
  netns: required('NODE_NETNS'),
  workDir: required('WORK_DIR'),
};
const images = {
  trawl: required('TRAWL_IMAGE'),
  trawlNext: required('TRAWL_IMAGE_NEXT'),
  postgres: required('POSTGRES_IMAGE'),
  nats: required('NATS_IMAGE'),
  testweb: required('TESTWEB_IMAGE'),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (proof.sh sets it)`);
  return value;
}

const kube = new Kube(env);
const background = new Background();

interface State {
  adminToken: string;
  apiKey: string;
  client: TrawlClient;
  gatewayUrl: string;
}
const state: Partial<State> = {};
const need = <K extends keyof State>(key: K): State[K] => {
  if (state[key] === undefined) throw new Error(`${key} is not known yet: an earlier step failed`);
  return state[key] as State[K];
};

function tagOf(image: string): string {
  return image.slice(image.lastIndexOf(':') + 1);
}

function chartArgs(image: string): string[] {
  return [
    RELEASE,
    join(ROOT, 'deploy', 'helm', 'trawl'),
    '-n',
    NAMESPACE,
    '-f',
    join(HERE, 'values.yaml'),
    '--set',
    `image.tag=${tagOf(image)}`,
    '--wait',
    '--timeout',
    '8m',
  ];
}

async function apply(file: string): Promise<void> {
  const text = readFileSync(join(HERE, 'manifests', file), 'utf8')
    .replaceAll('${POSTGRES_IMAGE}', images.postgres)
    .replaceAll('${NATS_IMAGE}', images.nats)
    .replaceAll('${TESTWEB_IMAGE}', images.testweb);
  await kube.kubectlOk(['apply', '-f', '-'], text);
}

/** Secrets, as the chart's README has an operator make them, and the proof's own CA and certificate. */
async function makeSecrets(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-cluster-proof-'));
  try {
    await makeSecretsIn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function makeSecretsIn(dir: string): Promise<void> {
  ok(
    'openssl',
    await run('bash', [
      '-ec',
      `cd ${dir}
      openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Trawl proxy mode CA" -keyout proxy-ca.key -out proxy-ca.crt 2>/dev/null
      openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Trawl cluster proof CA" -keyout proof-ca.key -out proof-ca.crt 2>/dev/null
      openssl req -newkey rsa:2048 -nodes -subj "/CN=hooks.proof.test" -keyout hooks.key -out hooks.csr 2>/dev/null
      printf 'subjectAltName=DNS:hooks.proof.test,DNS:site.proof.test\\n' > hooks.ext
      openssl x509 -req -in hooks.csr -CA proof-ca.crt -CAkey proof-ca.key -CAcreateserial -days 2 -extfile hooks.ext -out hooks.crt 2>/dev/null`,
    ]),
  );
  const dbPassword = randomBytes(18).toString('hex');
  state.adminToken = randomBytes(24).toString('hex');
  await kube.kubectlOk(['create', 'namespace', NAMESPACE]);
  await kube.kubectlOk(['-n', 'postgres', 'create', 'secret', 'generic', 'postgres-auth', `--from-literal=password=${dbPassword}`]);
  await kube.kubectlOk([
    '-n',
    NAMESPACE,
    'create',
    'secret',
    'generic',
    'trawl-secrets',
    `--from-literal=database-url=postgres://trawl:${dbPassword}@postgres.postgres.svc:5432/trawl`,
    `--from-literal=admin-token=${state.adminToken}`,
    `--from-literal=secrets-key=${randomBytes(32).toString('base64')}`,
    `--from-file=proxy-mode-ca.crt=${dir}/proxy-ca.crt`,
    `--from-file=proxy-mode-ca.key=${dir}/proxy-ca.key`,
  ]);
  await kube.kubectlOk(['-n', NAMESPACE, 'create', 'configmap', 'trawl-proof-ca', `--from-file=ca.crt=${dir}/proof-ca.crt`]);
  await kube.kubectlOk(['-n', 'proof-web', 'create', 'secret', 'tls', 'testweb-tls', `--cert=${dir}/hooks.crt`, `--key=${dir}/hooks.key`]);
}

async function prerequisites(): Promise<string> {
  await apply('monitoring-crds.yaml');
  await kube.kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  for (const ns of ['postgres', 'nats', 'proof-web']) await kube.kubectlOk(['create', 'namespace', ns]);
  await makeSecrets();
  await Promise.all(['postgres.yaml', 'nats.yaml', 'testweb.yaml'].map(apply));
  for (const ns of ['postgres', 'nats', 'proof-web']) await kube.waitForDeployments(ns, 180);
  // The node's namespace has no uplink, so no route covers the Service range and a connection from
  // it to a Service address fails before kube-proxy's rules could rewrite it. A node with an uplink
  // routes it by default; this gives the namespace the same, through the pod bridge.
  ok('route to the Service range', await kube.inNetns('ip', ['route', 'replace', '10.96.0.0/16', 'dev', 'cni0']));
  return 'Postgres, NATS (JetStream), test web Ready; Secrets made';
}

async function install(): Promise<string> {
  await kube.helmOk(['install', ...chartArgs(images.trawl)]);
  // The hook Job is deleted once it succeeds (hook-succeeded); its events stay behind.
  const events = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', 'events', '--field-selector', 'involvedObject.kind=Job']);
  const completed = events.items.find((e) => e.reason === 'Completed' && String(e.involvedObject.name).includes('migrate'));
  if (!completed)
    throw new Error(
      `no Completed event of the migration Job: ${events.items.map((e) => `${e.involvedObject.name} ${e.reason}`).join(', ')}`,
    );
  return `migration Job ${completed.involvedObject.name} completed (pre-install hook)`;
}

async function deploymentsAvailable(): Promise<string> {
  await kube.kubectlOk(['-n', NAMESPACE, 'wait', '--for=condition=Available', 'deployment', '--all', '--timeout=300s']);
  const deployments = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', 'deployments']);
  return deployments.items
    .map((d) => `${d.metadata.name.replace(`${RELEASE}-`, '')} ${d.status.availableReplicas}/${d.spec.replicas}`)
    .join(', ');
}

async function helmTest(): Promise<string> {
  const out = await kube.helmOk(['test', RELEASE, '-n', NAMESPACE, '--timeout', '3m']);
  const phase = /Phase:\s+(\w+)/.exec(out)?.[1];
  if (phase !== 'Succeeded') throw new Error(`helm test: ${out}`);
  return 'test pod Succeeded';
}

async function tenant(): Promise<string> {
  const adminPort = await portForward(kube, background, NAMESPACE, `${RELEASE}-gateway-admin`, 8085);
  const created = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${adminPort}/admin/v1/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${need('adminToken')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cluster-proof', concurrency: 40, max_active_jobs: 10, rate_limit_per_minute: 100_000 }),
      });
      if (res.status !== 201) throw new Error(`admin API answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { tenant_id: string; api_key: string };
    },
    { what: 'tenant through the admin Service', timeoutMs: 30_000, intervalMs: 500 },
  );
  const service = await kube.json<any>(['-n', NAMESPACE, 'get', 'service', `${RELEASE}-gateway`]);
  const port = await relayInto(kube, background, 'gateway', service.spec.clusterIP, 8080);
  state.apiKey = created.api_key;
  state.gatewayUrl = `http://127.0.0.1:${port}`;
  state.client = new TrawlClient({ apiKey: created.api_key, baseUrl: state.gatewayUrl });
  return `tenant ${created.tenant_id} (admin API through port-forward); API through Service ${service.spec.clusterIP}:8080`;
}

/** The test web's fetch count per page, read from inside the node's network. */
async function siteHits(): Promise<Record<string, number>> {
  return JSON.parse(ok('test web /hits', await kube.inNetns('curl', ['-sS', '--fail', 'http://10.96.200.10/hits']))) as Record<
    string,
    number
  >;
}

async function crawlWholeSite(): Promise<string> {
  const client = need('client');
  const crawl = await startSiteCrawl(client, 2000, 0);
  return expectWholeSite(client, crawl.crawl_id, { pages: 2000, delayMs: 0, refetchAllowed: false }, 180_000, siteHits);
}

async function jsRender(): Promise<string> {
  const page = await need('client').fetch.page(`${SITE}/render`, { js_render: true });
  const text = page.text();
  if (!text.includes('rendered-in-the-cluster-7d2f')) throw new Error(`the page lacks what its script writes: ${text.slice(0, 300)}`);
  return "the script's text is in the answer (Chromium in the hardened fetch-worker pod)";
}

async function batchWithWebhook(): Promise<string> {
  const client = need('client');
  const key = await client.signingKeys.rotate();
  const jobId = await startBatch(client, 300, 0, `${HOOKS}/hooks/batch`);
  const { summary } = await expectWholeBatch(client, jobId, 300, 180_000);
  const testweb = await kube.json<any>(['-n', 'proof-web', 'get', 'service', 'testweb']);
  const delivery = await waitFor(
    async () => {
      const got = await kube.inNetns('curl', ['-sS', '--fail', `http://${testweb.spec.clusterIP}/hooks/batch`]);
      const list = JSON.parse(ok('receiver', got)) as { headers: Record<string, string>; body: string }[];
      return list.find((d) => d.body.includes(jobId));
    },
    { what: 'the run.completed webhook at the receiver', timeoutMs: 60_000, intervalMs: 500 },
  );
  const verified = verifyWebhook<{ event_type: string; job_id: string }>(delivery.body, delivery.headers, { [key.kid]: key.secret });
  if (verified.event.event_type !== 'run.completed' || verified.event.job_id !== jobId) {
    throw new Error(`unexpected webhook: ${delivery.body.slice(0, 300)}`);
  }
  return `${summary}; run.completed webhook signature verified (key ${key.kid}) at the HTTPS receiver`;
}

async function cliCrawl(): Promise<string> {
  const port = await portForward(kube, background, NAMESPACE, `${RELEASE}-gateway`, 8080);
  const out = join(env.workDir, 'cli-crawl.ndjson');
  const result = await run(
    join(ROOT, 'apps', 'cli', 'bin', 'trawl'),
    ['crawl', `${SITE}/site/300/0/p/0`, '--max-items', '1000', '--max-pages', '1000', '--follow', '--out', out],
    { env: { ...process.env, TRAWL_API_KEY: need('apiKey'), TRAWL_BASE_URL: `http://127.0.0.1:${port}` } },
  );
  ok('trawl crawl', result);
  const urls = readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { url: string }).url);
  const expected = siteUrls(300, 0);
  expected.delete(`${SITE}/site/300/0/p/0`);
  if (urls.length !== expected.size || new Set(urls).size !== expected.size || !urls.every((u) => expected.has(u))) {
    throw new Error(
      `the CLI wrote ${urls.length} results (${new Set(urls).size} distinct), not the site's ${expected.size} pages past the start`,
    );
  }
  return '`trawl crawl --follow` through kubectl port-forward: the 299 pages past the start, each once';
}

async function deletePodsMidCrawl(): Promise<string> {
  const client = need('client');
  const crawl = await startSiteCrawl(client, 2000, 150);
  await crawlProgress(client, crawl.crawl_id, 300, 120_000);
  const [worker] = await kube.readyPods(NAMESPACE, 'fetch-worker');
  await kube.kubectlOk(['-n', NAMESPACE, 'delete', 'pod', worker, '--wait=false']);
  await crawlProgress(client, crawl.crawl_id, 700, 120_000);
  const [coordinator] = await kube.readyPods(NAMESPACE, 'crawl-coordinator');
  await kube.kubectlOk(['-n', NAMESPACE, 'delete', 'pod', coordinator, '--wait=false']);
  const summary = await expectWholeSite(client, crawl.crawl_id, { pages: 2000, delayMs: 150, refetchAllowed: true }, 300_000, siteHits);
  return `deleted ${worker} at ≥300 pages and ${coordinator} at ≥700: ${summary}`;
}

async function upgradeMidCrawlAndLoad(): Promise<string> {
  const client = need('client');
  const crawl = await startSiteCrawl(client, 2000, 1000);
  await crawlProgress(client, crawl.crawl_id, 100, 120_000);
  // The pods the upgrade replaces take their logs with them: follow them to a file.
  const logs = join(env.workDir, 'upgrade-old-pods.log');
  background.start(
    'bash',
    [
      '-c',
      `exec "$0" -n ${NAMESPACE} logs -f --prefix --timestamps --max-log-requests 20 -l app.kubernetes.io/instance=${RELEASE} > ${logs} 2>&1`,
      `${env.toolsDir}/kubectl`,
    ],
    {
      ...process.env,
      KUBECONFIG: env.kubeconfig,
    },
  );
  const load = fetchLoad(need('gatewayUrl'), need('apiKey'), 4);
  await sleep(3_000);
  const started = Date.now();
  await kube.helmOk(['upgrade', ...chartArgs(images.trawlNext)]);
  await kube.kubectlOk(['-n', NAMESPACE, 'wait', '--for=condition=Available', 'deployment', '--all', '--timeout=300s']);
  const rolloutSeconds = Math.round((Date.now() - started) / 1000);
  await sleep(3_000);
  const tally = await load.stop();
  await assertImages(images.trawlNext);
  const summary = await expectWholeSite(client, crawl.crawl_id, { pages: 2000, delayMs: 1000, refetchAllowed: true }, 300_000, siteHits);
  writeFileSync(join(env.workDir, 'upgrade-fetch-load.json'), JSON.stringify(tally, null, 2));
  if (tally.failed > 0) throw new Error(`${tally.failed} Fetch answers a client would not retry: ${tally.examples.failed.join(' | ')}`);
  if (tally.ok === 0) throw new Error('the Fetch load got no answer at all');
  return (
    `rollout to ${tagOf(images.trawlNext)} in ${rolloutSeconds} s; crawl: ${summary}; Fetch load: ${tally.ok} ok, ` +
    `${tally.retryable} retryable${tally.retryable ? ` (e.g. ${tally.examples.retryable[0]})` : ''}, 0 failed`
  );
}

/** Every serving pod of the release (but helm test's) runs `image`. */
async function assertImages(image: string): Promise<void> {
  await waitFor(
    async () => {
      const pods = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', 'pods', '-l', 'app.kubernetes.io/instance=trawl']);
      // Pods still draining after the rollout (their grace period) no longer serve: not counted.
      const serving = pods.items.filter(
        (p) =>
          p.metadata.labels['app.kubernetes.io/component'] !== 'tests' && p.status.phase !== 'Succeeded' && !p.metadata.deletionTimestamp,
      );
      return serving.length > 0 && serving.every((p) => p.spec.containers[0].image.endsWith(`:${tagOf(image)}`));
    },
    { what: `every pod on ${image}`, timeoutMs: 120_000, intervalMs: 500 },
  );
}

async function rollback(): Promise<string> {
  // No --wait: helm's waits for the replaced pods to finish their grace period too; a rollout is
  // done when every Deployment's new pods serve (rollout status) and only they do (assertImages).
  await kube.helmOk(['rollback', RELEASE, '1', '-n', NAMESPACE]);
  await kube.waitForDeployments(NAMESPACE, 300);
  await assertImages(images.trawl);
  const page = await need('client').fetch.page(`${SITE}/site/10/0/p/3`);
  if (!page.text().includes('Page 3')) throw new Error('a Fetch after the rollback did not answer the page');
  const history = await kube.helmOk(['history', RELEASE, '-n', NAMESPACE, '-o', 'json']);
  const revisions = (JSON.parse(history) as { revision: number; status: string }[]).map((r) => `${r.revision}:${r.status}`).join(' ');
  return `back on ${tagOf(images.trawl)}, a Fetch answers; history ${revisions}`;
}

async function scaleMidBatch(): Promise<string> {
  const client = need('client');
  const jobId = await startBatch(client, 2000, 1000);
  await batchProgress(client, jobId, 200, 120_000);
  await kube.kubectlOk(['-n', NAMESPACE, 'scale', `deployment/${RELEASE}-fetch-worker`, '--replicas=3']);
  await waitFor(async () => (await kube.readyPods(NAMESPACE, 'fetch-worker')).length === 3, {
    what: '3 fetch workers Ready',
    timeoutMs: 180_000,
    intervalMs: 500,
  });
  const at3 = await batchProgress(client, jobId, 0, 1_000);
  await batchProgress(client, jobId, Math.min(1900, at3 + 300), 180_000);
  await kube.kubectlOk(['-n', NAMESPACE, 'scale', `deployment/${RELEASE}-fetch-worker`, '--replicas=2']);
  const { summary } = await expectWholeBatch(client, jobId, 2000, 300_000);
  await waitFor(
    async () => {
      const pods = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', 'pods', '-l', 'app.kubernetes.io/component=fetch-worker']);
      return pods.items.length === 2;
    },
    { what: '2 fetch workers', timeoutMs: 120_000, intervalMs: 500 },
  );
  return `scaled to 3 at ${at3} tasks done, back to 2: ${summary}`;
}

async function monitoring(): Promise<string> {
  const report = await checkMonitoring(kube, NAMESPACE);
  writeFileSync(join(env.workDir, 'monitoring.txt'), report.lines.join('\n') + '\n');
  if (report.wrong.length > 0) throw new Error(`queries that cannot match: ${report.wrong.join('; ')}`);
  return (
    `${report.targets} targets (${report.pods} pods) scraped through the ServiceMonitors' Services; ${report.queries} queries: ` +
    `${report.withSeries} with series from this run, ${report.waiting.length} on metrics exposed but not yet observed, ` +
    `${report.external.length} on kube-state-metrics/NATS exporter only (not installed here); details in monitoring.txt`
  );
}

async function uninstall(): Promise<string> {
  await kube.helmOk(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout', '3m']);
  await waitFor(
    async () => {
      const pods = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', 'pods']);
      return pods.items.length === 0;
    },
    { what: 'the release pods gone', timeoutMs: 120_000, intervalMs: 500 },
  );
  const kinds =
    'all,configmaps,secrets,serviceaccounts,poddisruptionbudgets,networkpolicies,jobs,servicemonitors,prometheusrules,roles,rolebindings';
  const left = await kube.json<{ items: any[] }>(['-n', NAMESPACE, 'get', kinds]);
  const names = left.items.map((o) => `${o.kind}/${o.metadata.name}`);
  // Kept, as the chart's README says: the Secret the operator made; also the proof's own CA ConfigMap
  // and what Kubernetes puts in every namespace.
  const expected = new Set(['Secret/trawl-secrets', 'ConfigMap/trawl-proof-ca', 'ConfigMap/kube-root-ca.crt', 'ServiceAccount/default']);
  const unexpected = names.filter((n) => !expected.has(n) && !/^Secret\/default-token-/.test(n));
  if (unexpected.length > 0) throw new Error(`left behind: ${unexpected.join(', ')}`);
  return `nothing of the release left in namespace ${NAMESPACE} but the Secret trawl-secrets`;
}

const STEPS: [string, () => Promise<string>][] = [
  ['Postgres, NATS, test web in the cluster', prerequisites],
  ['helm install (migration hook Job)', install],
  ['every Deployment Available', deploymentsAvailable],
  ['helm test', helmTest],
  ['tenant (admin API), gateway Service', tenant],
  ['crawl of 2,000 pages', crawlWholeSite],
  ['js_render Fetch', jsRender],
  ['batch job + signed webhook', batchWithWebhook],
  ['CLI crawl from the host', cliCrawl],
  // Before any pod is replaced, so that the counters of the work above are still in the pods
  // (a Prometheus would have scraped them all along).
  ['metrics via ServiceMonitors', monitoring],
  ['pods deleted mid-crawl', deletePodsMidCrawl],
  ['helm upgrade mid-crawl + Fetch load', upgradeMidCrawlAndLoad],
  ['helm rollback', rollback],
  ['workers 2 → 3 → 2 mid-batch', scaleMidBatch],
  ['helm uninstall', uninstall],
];

async function main(): Promise<void> {
  const report: string[] = [];
  let failed = false;
  const t0 = Date.now();
  for (const [name, step] of STEPS) {
    const started = Date.now();
    let line: string;
    try {
      const detail = await step();
      line = `${name.padEnd(40)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  passed  ${detail}`;
    } catch (error) {
      failed = true;
      line = `${name.padEnd(40)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  FAILED  ${(error as Error).message}`;
    }
    console.log(`[cluster-proof] ${line}`);
    report.push(line);
    if (failed) break;
  }
  background.stopAll();
  const total = `steps total ${((Date.now() - t0) / 1000).toFixed(1)} s`;
  report.push(total);
  writeFileSync(join(env.workDir, 'report.txt'), report.join('\n') + '\n');
  console.log(`[cluster-proof] ${total}`);
  process.exitCode = failed ? 1 : 0;
}

process.on('SIGTERM', () => {
  background.stopAll();
  process.exit(143);
});
void main();
