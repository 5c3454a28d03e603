import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A free TCP port on loopback (the OS picks it; it is closed again before use). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export interface KubeApiServer {
  kubeconfig: string;
  stop(): void;
}

/**
 * The script that starts a kube-apiserver with etcd: `KUBE_APISERVER_START` (no npm or Debian
 * package ships a kube-apiserver; CI's machine provides one and `.ci/run` names it).
 */
export function kubeApiServerScript(): string | undefined {
  return process.env.KUBE_APISERVER_START || undefined;
}

/**
 * Why the API server cannot be started here (undefined when it can): suites skip with this message
 * rather than fail on a machine without the tool.
 */
export function kubeApiServerMissing(): string | undefined {
  const script = kubeApiServerScript();
  if (script && existsSync(script)) return undefined;
  return (
    `${script ? `no kube-apiserver start script at ${script}` : 'KUBE_APISERVER_START is not set'}: set it to a script that takes a folder and ` +
    "starts etcd and a kube-apiserver v1.20 (built from Debian bookworm's kubernetes source package, with etcd from etcd-server) on " +
    'ETCD_PORT, ETCD_PEER_PORT and KAS_PORT, writing <folder>/kubeconfig and the two pid files'
  );
}

/** Starts Kubernetes v1.20.2 with etcd on loopback on free ports (about 5 s); stop() kills both by pid. */
export async function startKubeApiServer(): Promise<KubeApiServer> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-kas-'));
  const [etcd, peer, kas] = [await freePort(), await freePort(), await freePort()];
  const stop = () => {
    for (const file of ['kube-apiserver.pid', 'etcd.pid']) {
      const path = join(dir, file);
      if (!existsSync(path)) continue;
      try {
        process.kill(Number(readFileSync(path, 'utf8').trim()), 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const script = kubeApiServerScript();
  if (!script) throw new Error(kubeApiServerMissing());
  try {
    await run(script, [dir], {
      env: { ...process.env, ETCD_PORT: String(etcd), ETCD_PEER_PORT: String(peer), KAS_PORT: String(kas) },
      timeout: 90_000,
    });
  } catch (error) {
    stop();
    throw error;
  }
  return { kubeconfig: join(dir, 'kubeconfig'), stop };
}
