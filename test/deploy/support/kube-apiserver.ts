import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './chart';

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

/** The shared folder beside the clone (`<repo>/../shared`), where the kube-apiserver tool lives. */
export function kubeApiServerScript(): string {
  return resolve(repoRoot, '..', 'shared', 'tools', 'kube-apiserver', 'start.sh');
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
  try {
    await run(kubeApiServerScript(), [dir], {
      env: { ...process.env, ETCD_PORT: String(etcd), ETCD_PEER_PORT: String(peer), KAS_PORT: String(kas) },
      timeout: 90_000,
    });
  } catch (error) {
    stop();
    throw error;
  }
  return { kubeconfig: join(dir, 'kubeconfig'), stop };
}
