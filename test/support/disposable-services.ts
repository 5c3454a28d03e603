import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@trawl/testing';
import { freePort } from './platform';

const NATS_SERVER = '/usr/sbin/nats-server';
const PG_BIN = '/usr/lib/postgresql/15/bin';
/** Postgres refuses to run as root: it runs as this OS user, in a directory it owns. */
const PG_USER = 'postgres';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * A nats-server of one suite, on a port of its own with a JetStream store in a temporary directory:
 * a suite can `kill()` it (SIGKILL, by pid) and `start()` it again on the same port and store,
 * as a NATS pod is killed and rescheduled, without touching the NATS that `make run` uses.
 */
export class DisposableNats {
  readonly dir = mkdtempSync(join(tmpdir(), 'trawl-nats-'));
  private child?: ChildProcess;
  private port = 0;

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server (first time: on a free port) and waits until it accepts connections. */
  async start(): Promise<void> {
    if (this.child) return;
    this.port ||= await freePort();
    const log = openSync(join(this.dir, 'nats.log'), 'a');
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', join(this.dir, 'store')], {
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}; see ${this.dir}/nats.log`);
        return reachable(this.port);
      },
      { timeoutMs: 15_000, what: 'nats-server to listen' },
    );
  }

  /** `kill -9`: no shutdown, the store is left as a crash leaves it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  }

  /** Kills the server and removes its store. Safe to call twice. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A Postgres cluster of one suite (initdb in a temporary directory, its own port), run as the
 * `postgres` OS user. `kill()` is a `kill -9` of the postmaster's process group — the postmaster and
 * every backend, as when its pod dies — and `start()` brings it back on the same data directory
 * (crash recovery included), as a restart or a CloudNativePG switchover does.
 */
export class DisposablePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'trawl-pg-'));
  private port = 0;
  private initialised = false;
  private postmaster?: number;

  /** The server's maintenance database, for `createTestDatabase(…, serverUrl)`. */
  get serverUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get pid(): number | undefined {
    return this.postmaster;
  }

  async start(): Promise<void> {
    if (this.postmaster) return;
    if (!this.initialised) {
      chownSync(this.dir, uidOf(PG_USER), gidOf(PG_USER));
      this.asPostgres('initdb', ['-D', this.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      this.port = await freePort();
      this.initialised = true;
    }
    // fsync=off: the tests kill processes, not the machine; the page cache survives a kill -9.
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    this.asPostgres('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', join(this.dir, 'postgres.log'), '-w', '-t', '60', 'start']);
    this.postmaster = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    await waitFor(
      () => spawnSync(join(PG_BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres']).status === 0,
      { timeoutMs: 30_000, intervalMs: 100, what: `Postgres on ${this.port} to accept connections (log: ${this.dir}/postgres.log)` },
    );
  }

  /** `kill -9` of the postmaster and its backends (pg_ctl starts the postmaster as a process group leader). */
  async kill(): Promise<void> {
    const pid = this.postmaster;
    if (!pid) return;
    this.postmaster = undefined;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
    await waitFor(() => !alive(pid) && !(spawnSync('pgrep', ['-g', String(pid)]).status === 0), {
      timeoutMs: 10_000,
      what: `Postgres ${pid} to be gone`,
    });
    // A kill leaves the lock file behind; the next start would take it over anyway.
    rmSync(join(this.dataDir, 'postmaster.pid'), { force: true });
  }

  /** Kills the server and removes its data directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private asPostgres(command: string, args: string[]): void {
    const result = spawnSync('runuser', ['-u', PG_USER, '--', join(PG_BIN, command), ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}

function gidOf(user: string): number {
  return Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
}
