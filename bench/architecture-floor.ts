import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';

/**
 * The architecture at its floor: an HTTP front and a NATS queue-group worker that fetches the page,
 * each its own process, with none of Trawl's work in between (architecture-floor-process.ts). Run
 * beside Trawl in the same bench, it tells how much of Trawl's overhead over a direct fetch the hops
 * alone cost on this machine, and how much is Trawl's own work.
 */
export interface ArchitectureFloor {
  origin: string;
  frontPid: number;
  backPid: number;
  /** Path and query that fetch `url` through the floor. */
  pathFor(url: string): string;
  stop(): Promise<void>;
}

export async function startArchitectureFloor(hostMap: string, startTimeoutMs = 15_000): Promise<ArchitectureFloor> {
  const subject = `bench.floor.${randomUUID()}`;
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map((child) =>
        child.exitCode !== null || child.signalCode !== null ? undefined : (child.kill('SIGTERM'), once(child, 'exit')),
      ),
    );
  };
  try {
    const back = await startRole(children, ['back', subject, hostMap], startTimeoutMs);
    const front = await startRole(children, ['front', subject], startTimeoutMs);
    const { port } = front.line as { port: number };
    return {
      origin: `http://127.0.0.1:${port}`,
      frontPid: front.pid,
      backPid: back.pid,
      pathFor: (url) => `/?url=${encodeURIComponent(url)}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startRole(children: ChildProcess[], args: string[], timeoutMs: number): Promise<{ pid: number; line: unknown }> {
  const child = spawn(process.execPath, [join(__dirname, 'architecture-floor-process.js'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  try {
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`architecture floor ${args[0]} exited with ${String(code)} before serving`)));
      timer = setTimeout(() => reject(new Error(`architecture floor ${args[0]} did not start within ${timeoutMs} ms`)), timeoutMs);
    });
    return { pid: child.pid!, line: JSON.parse(first) };
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}
