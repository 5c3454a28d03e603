import { Command } from 'commander';
import { registerBatchCommands } from './commands/batch';
import { registerCompletionCommand } from './commands/completion';
import { registerCrawlCommands } from './commands/crawl';
import { registerExtractCommands } from './commands/extract';
import { registerFetchCommand } from './commands/fetch';
import { registerMapCommand } from './commands/map';
import { registerMcpCommand } from './commands/mcp';
import { examples } from './commands/help-text';
import { registerUsageCommand } from './commands/usage';
import { CLI_VERSION, type CliContext } from './context';
import { exitCodeHelp } from './exit-codes';

const CONFIGURATION_HELP = `
Configuration (the first place that has it wins):
  API key   --api-key, then $TRAWL_API_KEY, then "api_key" in the config file
  Base URL  --base-url, then $TRAWL_BASE_URL, then "base_url" in the config file, then http://localhost:8080
  Config    --config, then $TRAWL_CONFIG, then $XDG_CONFIG_HOME/trawl/config.json (~/.config/trawl/config.json)
            e.g. { "api_key": "…", "base_url": "https://trawl.example.com" }
  Prefer the environment or the file to --api-key: a flag shows in the process list.

Output: data (bodies, records, NDJSON) on stdout; progress (only when stderr is a terminal),
retries and errors on stderr, errors as "trawl: <code>: <detail>" (with --json: problem JSON).
`;

/**
 * The `trawl` program: every command, its options and help. Nothing runs until it is parsed; errors
 * (commander's usage errors included, through `exitOverride`) are thrown to the caller, which turns
 * them into output and an exit code in one place (main.ts).
 */
export function buildProgram(context: CliContext): Command {
  const program = new Command('trawl')
    .description('The Trawl API from the command line: fetch pages, crawl sites, run batch jobs.')
    .version(CLI_VERSION, '-V, --version', "print the CLI's version")
    .option('--api-key <key>', 'the API key (default: $TRAWL_API_KEY, else the config file)')
    .option('--base-url <url>', "the API's base URL (default: $TRAWL_BASE_URL, else the config file, else http://localhost:8080)")
    .option('--config <file>', 'the config file (default: $TRAWL_CONFIG, else ~/.config/trawl/config.json)')
    .option('--json', 'for scripts: records as one line of JSON, errors as problem JSON on stderr')
    // Set before any command is added: subcommands copy these settings when created.
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.terminal.stream.write(text),
      // main.ts writes every error, commander's too, in one format.
      outputError: () => undefined,
    })
    .addHelpText(
      'after',
      examples(
        ['export TRAWL_API_KEY=…; trawl usage', 'credits left'],
        ['trawl fetch https://example.com/ --markdown', 'one page as Markdown'],
        ['trawl crawl https://example.com/ --max-items 500 --follow --out results.ndjson', 'crawl a site with a progress line'],
        ['trawl batch submit urls.csv --watch', 'fetch every URL of a CSV file'],
        ['trawl <command> --help', 'options and examples of a command'],
      ) +
        CONFIGURATION_HELP +
        `\nExit codes:\n${exitCodeHelp()}\n`,
    );
  registerFetchCommand(program, context);
  registerMapCommand(program, context);
  registerCrawlCommands(program, context);
  registerBatchCommands(program, context);
  registerUsageCommand(program, context);
  registerExtractCommands(program, context);
  registerMcpCommand(program, context);
  registerCompletionCommand(program, context);
  return program;
}

/** Every command of the program, the program first, depth first (for tests and completion). */
export function allCommands(program: Command): Command[] {
  return [program, ...program.commands.flatMap((command) => allCommands(command))];
}
