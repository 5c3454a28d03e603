import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { BigSiteShape } from '../test/fixtures/web/sites/big';

const ROOT = resolve(__dirname, '..', '..');

/** The fixture web running as its own process, so it never competes for the bench's event loop. */
export interface FixtureWebProcess {
  pid: number;
  port: number;
  /** `EGRESS_HOST_MAP` form (`big.test=127.0.0.1,…`) of every fixture host. */
  hostMap: string;
  /** `http://big.test:<port>/`, page 0 of the generated site. */
  bigSiteUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `dist/test/fixtures/web/main.js` with a big.test of `bigPages` pages, of the given shape
 * (default ~2.5 KB pages with their structural links); resolves once it listens.
 */
export async function startFixtureWebProcess(
  bigPages: number,
  shape: BigSiteShape = {},
  startTimeoutMs = 15_000,
): Promise<FixtureWebProcess> {
  const shapeArgs = [
    ...(shape.fillerBytes === undefined ? [] : ['--big-filler-bytes', String(shape.fillerBytes)]),
    ...(shape.links === undefined ? [] : ['--big-links', String(shape.links)]),
  ];
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'dist', 'test', 'fixtures', 'web', 'main.js'), '--big-pages', String(bigPages), ...shapeArgs],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fixture web exited with ${String(code)} before listening`)));
    timer = setTimeout(() => reject(new Error(`fixture web did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
  })
    .catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    })
    .finally(() => clearTimeout(timer));
  lines.close();
  const { port, hostMap } = JSON.parse(first) as { port: number; hostMap: string };
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    port,
    hostMap,
    bigSiteUrl: `http://big.test:${port}/`,
    stop() {
      stopping ??= child.exitCode !== null ? Promise.resolve() : (child.kill('SIGTERM'), exited.then(() => undefined));
      return stopping;
    },
  };
}
