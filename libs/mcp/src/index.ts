export * from './trawl-mcp-server';
