import { cliEnvironment } from './config';
import type { CliContext } from './context';
import { exitCodeOf } from './exit-codes';
import { buildProgram } from './program';
import { Terminal } from './progress';
import { reportOf } from './report-failure';

/**
 * `trawl`: parses the command line, runs the command, and turns whatever it threw into stderr
 * output and an exit code, here and nowhere else.
 */
async function main(argv: readonly string[]): Promise<number> {
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    interrupt.abort(new Error('interrupted (SIGINT)'));
    // A second Ctrl-C does not wait for the first to wind down.
    process.once('SIGINT', () => process.exit(exitCodeOf('interrupted')));
  });
  // A reader that went away (`trawl crawl results … | head`) ends the command quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(exitCodeOf('ok'));
  });
  const terminal = new Terminal(process.stderr);
  const context: CliContext = { stdout: process.stdout, stdin: process.stdin, terminal, env: cliEnvironment(), signal: interrupt.signal };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv]);
    return exitCodeOf('ok');
  } catch (error) {
    const report = reportOf(error);
    // --json may not have been parsed when the command line itself was wrong.
    const json = program.opts<{ json?: boolean }>().json === true || argv.slice(2).includes('--json');
    if (report.text !== undefined) terminal.note(json ? JSON.stringify(report.problem) : report.text);
    return report.exitCode;
  }
}

void main(process.argv).then((code) => {
  // Not process.exit(): stdout may still hold the end of a large body.
  process.exitCode = code;
});
