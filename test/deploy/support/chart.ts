import { execFile, execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object (only what the tests read is typed). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; namespace?: string };
  spec?: any;
  [key: string]: unknown;
}

export const repoRoot = resolve(__dirname, '..', '..', '..');
export const chartDir = resolve(repoRoot, 'deploy', 'helm', 'trawl');
const run = promisify(execFile);

let toolsDir: string | undefined;
/** The folder holding helm, kubectl and promtool (tools/deploy-tools.sh caches them). */
export function deployTools(): string {
  toolsDir ??= execFileSync(resolve(repoRoot, 'tools', 'deploy-tools.sh'), { encoding: 'utf8', timeout: 120_000 }).trim();
  return toolsDir;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a deploy tool (helm, kubectl) and returns its exit code and output, never throwing on a non-zero exit. */
export async function tool(name: 'helm' | 'kubectl', args: string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(resolve(deployTools(), name), args, {
      env: { ...process.env, HELM_CACHE_HOME: '/tmp/trawl-helm-cache', HELM_CONFIG_HOME: '/tmp/trawl-helm-config', ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

/** API groups a cluster with every optional operator serves (KEDA, CloudNativePG, Prometheus Operator). */
export const OPERATOR_APIS = ['keda.sh/v1alpha1', 'postgresql.cnpg.io/v1', 'monitoring.coreos.com/v1'];

/** The values matrix in deploy/helm/trawl/ci, each with the APIs its cluster serves. */
export const CI_MATRIX: { name: string; file: string; apiVersions: string[] }[] = [
  { name: 'minimal', file: 'ci/minimal-values.yaml', apiVersions: [] },
  { name: 'full', file: 'ci/full-values.yaml', apiVersions: OPERATOR_APIS },
  { name: 'hpa', file: 'ci/hpa-values.yaml', apiVersions: [] },
  { name: 'gitops', file: 'ci/gitops-values.yaml', apiVersions: ['monitoring.coreos.com/v1'] },
];

export interface RenderOptions {
  valuesFiles?: string[];
  set?: string[];
  apiVersions?: string[];
  kubeVersion?: string;
  release?: string;
  namespace?: string;
  extraArgs?: string[];
}

export function templateArgs(options: RenderOptions = {}): string[] {
  const args = ['template', options.release ?? 'trawl', chartDir, '--namespace', options.namespace ?? 'scrape'];
  for (const file of options.valuesFiles ?? []) args.push('-f', resolve(chartDir, file));
  for (const entry of options.set ?? []) args.push('--set', entry);
  for (const api of options.apiVersions ?? []) args.push('--api-versions', api);
  if (options.kubeVersion) args.push('--kube-version', options.kubeVersion);
  return [...args, ...(options.extraArgs ?? [])];
}

/** `helm template` the chart; throws with helm's message when it refuses. */
export async function render(options: RenderOptions = {}): Promise<K8sObject[]> {
  const result = await tool('helm', templateArgs(options));
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseObjects(result.stdout);
}

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null && typeof object === 'object');
}

export function find(objects: K8sObject[], kind: string, name?: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
}

export function only(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = find(objects, kind, name);
  if (found.length !== 1)
    throw new Error(
      `expected one ${kind} ${name}, found ${found.length}: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  return found[0];
}

/** The components and their HTTP ports, as the lead fixed them. */
export const COMPONENTS = {
  gateway: 8080,
  'crawl-coordinator': 8081,
  'fetch-worker': 8082,
  scheduler: 8083,
  'webhook-dispatcher': 8084,
} as const;
export type Component = keyof typeof COMPONENTS;

/** The env of a Deployment's only container, by name. */
export function containerEnv(deployment: K8sObject): Map<string, { value?: string; valueFrom?: any }> {
  const container = deployment.spec.template.spec.containers[0];
  return new Map((container.env ?? []).map((e: { name: string; value?: string; valueFrom?: unknown }) => [e.name, e]));
}
