import type { Command } from 'commander';
import { once } from 'node:events';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTrawlMcpServer } from '@trawl/mcp';
import { clientFor, CLI_VERSION, type CliContext, type GlobalOptions } from '../context';
import { examples } from './help-text';

/** `trawl mcp`: the Trawl API as an MCP server over stdio, for an agent that starts it as a tool server. */
export function registerMcpCommand(program: Command, context: CliContext): void {
  program
    .command('mcp')
    .description("Serve the Trawl API's tools (fetch, map, crawl, batch, extract) to an AI agent over MCP on stdin/stdout")
    .addHelpText(
      'after',
      examples(['trawl mcp', 'what an agent runs: configure it as the command of an MCP server, with TRAWL_API_KEY in its environment']),
    )
    .action(async (_options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      // Retries are told on stderr as notes (stdout is the protocol's): an MCP client shows them as the server's log.
      const server = createTrawlMcpServer(clientFor(context, options), CLI_VERSION);
      const transport = new StdioServerTransport(context.stdin as NodeJS.ReadStream, context.stdout as NodeJS.WriteStream);
      const ended = Promise.race([once(context.stdin, 'end'), once(context.stdin, 'close')]);
      await server.connect(transport);
      // Serves until the agent closes our stdin.
      await ended;
      await server.close();
    });
}
