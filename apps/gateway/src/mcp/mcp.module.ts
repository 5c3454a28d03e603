import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';

/** The MCP server on the gateway (`/mcp`). */
@Module({ controllers: [McpController] })
export class McpModule {}
