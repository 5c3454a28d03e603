import { All, Body, Controller, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTrawlMcpServer } from '@trawl/mcp';
import type { Logger } from '@trawl/observability';
import { TrawlClient } from '@trawl/sdk';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { MCP_PATH, presentedKeyOf } from '../auth/api-key.hook';
import { buildVersion } from '../openapi/build-version';

/**
 * The MCP server over streamable HTTP (`/mcp`), stateless: each request gets a server whose tools
 * call this gateway's own REST API with the caller's key (already checked by the API key hook), so
 * a tool answers with exactly the REST API's limits, billing and errors. Answers are JSON, not SSE:
 * no tool streams.
 */
@Controller()
export class McpController {
  private readonly version = buildVersion();

  constructor(@Inject(SERVICE_LOGGER) private readonly logger: Logger) {}

  @All(MCP_PATH.slice(1))
  async handle(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() body: unknown): Promise<void> {
    if (request.method !== 'POST') {
      // Stateless: no session to end (DELETE), and no server-sent event stream to open (GET), which
      // would hold a connection open for nothing. The MCP spec lets a server answer 405 to both.
      await reply
        .status(405)
        .headers({ allow: 'POST', 'content-type': 'application/json' })
        .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: send JSON-RPC messages with POST.' }, id: null });
      return;
    }
    const trawl = new TrawlClient({
      apiKey: presentedKeyOf(request)!,
      // This replica itself, on the port the request came in on.
      baseUrl: `http://127.0.0.1:${request.raw.socket.localPort}`,
      // The agent decides what to do about a refusal: one quick retry, no long waits inside a tool call.
      retry: { maxRetries: 1, maxRetryAfterMs: 5_000 },
      userAgent: 'trawl-mcp',
    });
    const server = createTrawlMcpServer(trawl, this.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, body);
    } catch (error) {
      this.logger.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  }
}
