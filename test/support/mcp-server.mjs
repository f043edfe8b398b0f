// A small real MCP server for tests. Run as a script it serves over stdio; `mcpServer()` builds one
// for the streamable HTTP transport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export function mcpServer() {
  const server = new McpServer({ name: 'agentd-test', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('explode', { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'it broke' }],
    isError: true,
  }));
  server.registerTool('die', { description: 'Ends the server process' }, async () => process.exit(3));
  return server;
}

if (process.argv[2] === 'stdio') {
  await mcpServer().connect(new StdioServerTransport());
}
