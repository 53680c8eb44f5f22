// The smallest MCP server on the stack `rea mcp` is built on: Node.js, the same MCP SDK and zod, one
// tool (`echo`), over stdio. bench/artifact/mcpCall.mjs --floor drives it exactly as it drives
// `rea mcp`, so its peak RSS is the memory any server of this stack needs before it does any work.
//   node bench/artifact/floorServer.mjs
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'floor', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Answers its input.', inputSchema: z.object({ path: z.string() }) },
  async ({ path }) => ({ content: [{ type: 'text', text: path }] }),
);
await server.connect(new StdioServerTransport());
