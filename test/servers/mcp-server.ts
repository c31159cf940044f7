import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// The SDK's required peer dependency: its tool schemas are zod shapes.
import { z } from 'zod';

/** Size of the `huge` tool's answer, in bytes. */
export const HUGE_BYTES = 100 * 1024;

/**
 * A real MCP server (the official SDK's McpServer over Streamable HTTP, stateless) on
 * 127.0.0.1 for the plugin tests. Tools: `echo {text}`, `slow {ms}` (answers after `ms`),
 * `huge` (100 KB of text), `fails` (an `isError` result). Records every request's headers, so
 * tests can check what reached the server.
 */
export class McpTestServer {
  /** Headers of every HTTP request received, in order. */
  readonly requests: { method: string; headers: IncomingHttpHeaders }[] = [];
  /** The endpoint for the client, `http://127.0.0.1:<port>/mcp` (set by `start`). */
  url = '';
  port = 0;
  private server?: Server;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push({ method: req.method ?? '', headers: req.headers });
      if (req.method !== 'POST') {
        // Stateless: no standalone SSE stream, no session to delete.
        res.writeHead(405, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Method not allowed' },
            id: null,
          }),
        );
        return;
      }
      const mcp = buildServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

function buildServer(): McpServer {
  const mcp = new McpServer({ name: 'test-mcp', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  mcp.registerTool(
    'slow',
    { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number().int() } },
    async ({ ms }, extra) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  mcp.registerTool('huge', { description: 'Answers 100 KB of text' }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(HUGE_BYTES) }],
  }));
  mcp.registerTool('fails', { description: 'Always fails' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'it failed on purpose' }],
  }));
  return mcp;
}
