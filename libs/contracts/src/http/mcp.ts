import { z } from 'zod';
import type { ApiRoute } from './api-route';
import { problemResponses } from './problem.schema';

/** A JSON-RPC 2.0 message of the Model Context Protocol, loosely: its full shape is the MCP specification's. */
const jsonRpcMessage = z
  .looseObject({ jsonrpc: z.literal('2.0') })
  .meta({ id: 'McpMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP transport).' });

/** The MCP server: the API's tools for AI agents (docs/decisions/mcp.md). */
export const mcpRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcpMessage',
    summary: 'The MCP server (streamable HTTP, stateless)',
    description:
      "Tools `fetch`, `map`, `crawl_start`, `crawl_status`, `crawl_results`, `batch_start`, `batch_status`, `batch_results`, `extract`, each a call of this API with the caller's key. The key may also be sent as `Authorization: Bearer <key>`. GET and DELETE answer 405.",
    tag: 'MCP',
    body: jsonRpcMessage,
    responses: {
      200: { description: 'The JSON-RPC answer.', contentType: 'application/json', schema: jsonRpcMessage },
      202: { description: 'A notification or answer taken (no body).' },
      ...problemResponses(401, 402, 403),
    },
  },
];
