import { PassThrough } from 'node:stream';
import type { CliContext } from './context';
import { Terminal } from './progress';

/** A context for unit tests: stdout and stderr captured as text, no terminal, an empty environment. */
export function capturingContext(): CliContext & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  let err = '';
  const terminal = new Terminal({ isTTY: false, write: (text) => ((err += text), true) });
  return { stdout, stdin: new PassThrough(), terminal, env: {}, signal: new AbortController().signal, out: () => out, err: () => err };
}
