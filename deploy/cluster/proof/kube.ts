import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { waitFor } from '@trawl/testing';

/** Where the proof's tools and the node are (proof.sh sets these). */
export interface ProofEnvironment {
  /** helm 4 and kubectl (tools/deploy-tools.sh). */
  toolsDir: string;
  /** The node's kubeconfig on the host (start-node.sh writes DIR/kubeconfig). */
  kubeconfig: string;
  /** The node's network namespace: pods and Service addresses are reachable only from inside it. */
  netns: string;
  /** Folder of this run's logs and sockets. */
  workDir: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws for a non-zero exit (`ok` does). */
export async function run(
  command: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A command that exits before reading its input closes the pipe: its exit code tells, not EPIPE.
  child.stdin?.on('error', () => undefined).end(options.input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code ?? 1, stdout, stderr };
}

/** `result`'s stdout, or an error naming the command and its stderr. */
export function ok(what: string, result: RunResult): string {
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}: ${(result.stderr || result.stdout).trim().slice(-1500)}`);
  return result.stdout;
}

/** kubectl and helm against the node, from the host. */
export class Kube {
  constructor(readonly env: ProofEnvironment) {}

  private get toolEnv(): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.env.kubeconfig };
  }

  kubectl(args: readonly string[], input?: string): Promise<RunResult> {
    return run(`${this.env.toolsDir}/kubectl`, args, { input, env: this.toolEnv });
  }

  helm(args: readonly string[]): Promise<RunResult> {
    return run(`${this.env.toolsDir}/helm`, args, { env: this.toolEnv });
  }

  async kubectlOk(args: readonly string[], input?: string): Promise<string> {
    return ok(`kubectl ${args.join(' ')}`, await this.kubectl(args, input));
  }

  async helmOk(args: readonly string[]): Promise<string> {
    return ok(`helm ${args.slice(0, 2).join(' ')}`, await this.helm(args));
  }

  async json<T = any>(args: readonly string[]): Promise<T> {
    return JSON.parse(await this.kubectlOk([...args, '-o', 'json'])) as T;
  }

  /** Runs `command` inside the node's network namespace (where pod and Service addresses answer). */
  inNetns(command: string, args: readonly string[]): Promise<RunResult> {
    return run('nsenter', [`--net=/run/netns/${this.env.netns}`, command, ...args]);
  }

  /** `kubectl rollout status` of every Deployment in `namespace`. */
  async waitForDeployments(namespace: string, timeoutSeconds: number): Promise<void> {
    const names = (await this.kubectlOk(['-n', namespace, 'get', 'deployments', '-o', 'name'])).split('\n').filter(Boolean);
    for (const name of names) await this.kubectlOk(['-n', namespace, 'rollout', 'status', name, `--timeout=${timeoutSeconds}s`]);
  }

  /** Ready pods of a component of release `trawl`, by name. */
  async readyPods(namespace: string, component: string): Promise<string[]> {
    const list = await this.json<{ items: any[] }>(['-n', namespace, 'get', 'pods', '-l', `app.kubernetes.io/component=${component}`]);
    return list.items
      .filter(
        (pod) => !pod.metadata.deletionTimestamp && pod.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'),
      )
      .map((pod) => pod.metadata.name as string);
  }
}

/** Polls `probe` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** A long-running helper process the proof stops at its end. */
export class Background {
  private readonly children: ChildProcess[] = [];

  start(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(command, args, { env: env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    child.stderr?.setEncoding('utf8').on('data', () => undefined);
    this.children.push(child);
    return child;
  }

  stop(child: ChildProcess): void {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
  }

  stopAll(): void {
    for (const child of this.children) this.stop(child);
  }
}

/**
 * A host port that leads to `address:port` as seen from inside the node's network namespace: every
 * connection to 127.0.0.1:<returned port> becomes one connection from the namespace to the target,
 * so a Service address is balanced by kube-proxy per connection, as for any in-cluster client.
 * Two socat processes joined by a Unix socket, the way start-node.sh exposes the API server.
 */
export async function relayInto(kube: Kube, background: Background, name: string, address: string, port: number): Promise<number> {
  const socket = `${kube.env.workDir}/${name}.sock`;
  const hostPort = await freePort();
  background.start('nsenter', [
    `--net=/run/netns/${kube.env.netns}`,
    'socat',
    `UNIX-LISTEN:${socket},fork,unlink-early`,
    `TCP:${address}:${port}`,
  ]);
  await waitFor(async () => (await run('test', ['-S', socket])).code === 0, {
    what: `relay socket ${socket}`,
    timeoutMs: 10_000,
    intervalMs: 100,
  });
  background.start('socat', [`TCP-LISTEN:${hostPort},bind=127.0.0.1,reuseaddr,fork`, `UNIX-CONNECT:${socket}`]);
  await waitFor(async () => (await run('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${hostPort}`])).code === 0, {
    what: `relay port ${hostPort}`,
    timeoutMs: 10_000,
    intervalMs: 100,
  });
  return hostPort;
}

/** `kubectl port-forward` to a Service, as an operator reaches it; resolves with the local port. */
export async function portForward(kube: Kube, background: Background, namespace: string, service: string, port: number): Promise<number> {
  const local = await freePort();
  background.start(`${kube.env.toolsDir}/kubectl`, ['-n', namespace, 'port-forward', `svc/${service}`, `${local}:${port}`], {
    ...process.env,
    KUBECONFIG: kube.env.kubeconfig,
  });
  await waitFor(async () => (await run('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${local}`])).code === 0, {
    what: `port-forward to ${service}`,
    timeoutMs: 20_000,
    intervalMs: 200,
  });
  return local;
}
