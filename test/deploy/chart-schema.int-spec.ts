import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { render, repoRoot } from './support/chart';

jest.setTimeout(60_000);

/** Every block of values.yaml that must refuse an unknown key. */
const BLOCKS = [
  '',
  'image',
  'secrets',
  'secrets.keys',
  'nats',
  'postgres',
  'postgres.cloudnativepg',
  'postgres.cloudnativepg.storage',
  'migrations',
  'tracing',
  'plans',
  'serviceAccount',
  'gateway',
  'gateway.proxyMode',
  'gateway.proxyMode.caSecret',
  'gateway.service',
  'gateway.autoscaling',
  'gateway.autoscaling.hpa',
  'gateway.podDisruptionBudget',
  'crawlCoordinator',
  'fetchWorker',
  'fetchWorker.shm',
  'fetchWorker.autoscaling',
  'fetchWorker.autoscaling.keda',
  'fetchWorker.autoscaling.keda.crawlPages',
  'fetchWorker.autoscaling.keda.batchTasks',
  'fetchWorker.autoscaling.keda.fetchRequests',
  'fetchWorker.autoscaling.hpa',
  'scheduler',
  'webhookDispatcher',
  'networkPolicy',
  'networkPolicy.dns',
  'networkPolicy.admin',
  'networkPolicy.internetEgress',
  'monitoring',
  'monitoring.serviceMonitors',
  'monitoring.prometheusRule',
  'monitoring.dashboards',
];

async function refusal(args: string[]): Promise<string> {
  try {
    await render({ extraArgs: args });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`helm template accepted ${args.join(' ')}`);
}

describe('values.schema.json', () => {
  it('is what deploy/helm/schema/build-values-schema.mjs writes', () => {
    expect(() =>
      execFileSync('node', [resolve(repoRoot, 'deploy/helm/schema/build-values-schema.mjs'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });

  it.each(BLOCKS)('refuses an unknown key in the %s block', async (block) => {
    const key = block ? `${block}.bogusKey` : 'bogusKey';
    const message = await refusal(['--set', `${key}=1`]);
    expect(message).toMatch(/additional properties 'bogusKey' not allowed/);
  });

  it.each([
    ['negative replicas', ['--set', 'gateway.replicas=-1'], /gateway\/replicas': minimum/],
    ['a string for a number', ['--set-string', 'fetchWorker.browsers=2'], /fetchWorker\/browsers': got string, want integer/],
    ['a string for a plan default', ['--set-string', 'plans.credits=lots'], /plans\/credits': got string, want integer/],
    ['stream replicas above 5', ['--set', 'nats.streamReplicas=7'], /nats\/streamReplicas': maximum/],
    [
      'an admin port of 0 (one the OS picks, which no Service could name)',
      ['--set', 'gateway.adminPort=0'],
      /gateway\/adminPort': minimum/,
    ],
    ['a string for the admin port', ['--set-string', 'gateway.adminPort=8085'], /gateway\/adminPort': got string, want integer/],
    ['an unknown migration mode', ['--set', 'migrations.mode=startup'], /migrations\/mode/],
    ['an upper-case NATS prefix', ['--set', 'nats.prefix=Trawl'], /nats\/prefix/],
    ['an unknown log level', ['--set', 'logLevel=verbose'], /logLevel/],
    ['a NATS monitoring endpoint with a scheme', ['--set', 'nats.monitoringEndpoint=http://nats:8222'], /monitoringEndpoint/],
    ['a lower-case config variable', ['--set', 'gateway.config.fetch_deadline=1'], /'fetch_deadline' does not match/],
    [
      'a termination grace margin of 0 (grace period equal to the drain)',
      ['--set', 'scheduler.terminationGraceMarginSeconds=0'],
      /scheduler\/terminationGraceMarginSeconds': minimum/,
    ],
    [
      'KEDA minReplicas 0 with the synchronous Fetch requests trigger',
      [
        '--set',
        'fetchWorker.autoscaling.keda.enabled=true',
        '--set',
        'fetchWorker.autoscaling.keda.fetchRequests.enabled=true',
        '--set',
        'fetchWorker.autoscaling.keda.minReplicas=0',
      ],
      /keda\/minReplicas': minimum/,
    ],
    [
      'KEDA and an HPA together',
      ['--set', 'fetchWorker.autoscaling.keda.enabled=true', '--set', 'fetchWorker.autoscaling.hpa.enabled=true'],
      /fetchWorker\/autoscaling': 'not' failed/,
    ],
  ])('refuses %s', async (_what, args, pattern) => {
    expect(await refusal(args as string[])).toMatch(pattern as RegExp);
  });

  it('accepts KEDA alone and an HPA alone', async () => {
    await expect(render({ set: ['fetchWorker.autoscaling.keda.enabled=true'] })).resolves.toBeDefined();
    await expect(render({ set: ['fetchWorker.autoscaling.hpa.enabled=true'] })).resolves.toBeDefined();
  });

  it('accepts KEDA minReplicas 0 without the Fetch requests trigger, and 1 with it', async () => {
    await expect(
      render({ set: ['fetchWorker.autoscaling.keda.enabled=true', 'fetchWorker.autoscaling.keda.minReplicas=0'] }),
    ).resolves.toBeDefined();
    await expect(
      render({
        set: [
          'fetchWorker.autoscaling.keda.enabled=true',
          'fetchWorker.autoscaling.keda.fetchRequests.enabled=true',
          'fetchWorker.autoscaling.keda.minReplicas=1',
        ],
      }),
    ).resolves.toBeDefined();
  });
});
