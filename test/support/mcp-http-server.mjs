// Serves the reference "everything" MCP server over streamable HTTP on 127.0.0.1 (a free port), behind a bearer token when
// MCP_TEST_TOKEN is set; prints its URL on the first line of stdout. Started by test/support/mcp-servers.ts.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer as createEverything } from '@modelcontextprotocol/server-everything/dist/server/index.js';

const token = process.env.MCP_TEST_TOKEN;
const sessions = new Map();

const http = createServer(async (request, response) => {
  if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return void response.writeHead(404).end();
  if (token && request.headers.authorization !== `Bearer ${token}`) return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
  const sessionId = request.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (!transport && sessionId === undefined && request.method === 'POST') {
    const { server } = createEverything();
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
    await server.connect(transport);
  }
  if (!transport) return void response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no such session"}');
  await transport.handleRequest(request, response);
});

http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  process.stdout.write(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp\n`);
});
