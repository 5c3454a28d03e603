import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { CliError } from './cli-error';
import type { CliContext } from './context';

/** Writes `chunk`, waiting while the stream's buffer is full (a slow pipe, a full disk cache). */
export async function writeTo(stream: NodeJS.WritableStream, chunk: string | Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/** A record on stdout: one line of JSON with `--json` (for scripts), indented otherwise (for people). */
export function printRecord(context: CliContext, record: unknown, json: boolean | undefined): Promise<void> {
  return writeTo(context.stdout, `${json ? JSON.stringify(record) : JSON.stringify(record, null, 2)}\n`);
}

/** Where NDJSON lines or a body go: stdout, or the file of `--out`. */
export interface OutputSink {
  write(chunk: string | Uint8Array): Promise<void>;
  /** Flushes and closes a file (stdout stays open). */
  close(): Promise<void>;
}

/**
 * Opens `--out FILE` (truncating it), or stdout without it. Opened before any work starts, so that
 * a path that cannot be written fails before a crawl is started and billed.
 *
 * @throws CliError `usage` when the file cannot be opened.
 */
export async function openOutput(context: CliContext, path: string | undefined): Promise<OutputSink> {
  if (path === undefined || path === '-') return { write: (chunk) => writeTo(context.stdout, chunk), close: async () => undefined };
  const file = createWriteStream(path, { flags: 'w' });
  let failure: Error | undefined;
  file.on('error', (error) => (failure = error));
  try {
    await once(file, 'open');
  } catch (error) {
    throw CliError.usage(`cannot write ${path}: ${(error as Error).message}`);
  }
  const failed = (): never => {
    throw CliError.usage(`cannot write ${path}: ${failure?.message}`);
  };
  return {
    write: async (chunk) => {
      if (failure) failed();
      await writeTo(file, chunk);
    },
    close: async () => {
      if (file.closed) return;
      file.end();
      await once(file, 'close');
      if (failure) failed();
    },
  };
}

/** Writes each value as one line of JSON (NDJSON). */
export class NdjsonWriter {
  /** Lines written so far. */
  lines = 0;

  constructor(private readonly sink: OutputSink) {}

  async write(value: unknown): Promise<void> {
    await this.sink.write(`${JSON.stringify(value)}\n`);
    this.lines++;
  }

  close(): Promise<void> {
    return this.sink.close();
  }
}

/**
 * The text of an input file named on the command line, or of stdin for `-`.
 *
 * @throws CliError `usage` when the file cannot be read.
 */
export async function readInput(context: CliContext, path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of context.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw CliError.usage(`cannot read ${path}: ${(error as Error).message}`);
  }
}
