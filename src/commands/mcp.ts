// /mcp: the configured MCP servers, their state and tools; /mcp reconnect [name] starts them again.
import { z } from 'zod';
import { result } from '../output.js';
import type { McpServerStatus } from '../mcp/manager.js';
import { defineCommand } from './types.js';

function describe(servers: McpServerStatus[], ignored: readonly string[]): string {
  // Servers this folder's config names but the folder is not trusted for: said, so "none configured" does not mislead.
  const untrusted = ignored.length ? `\nNot started, because this folder is not trusted: ${ignored.join(', ')} (/trust yes, then start cadre again).` : '';
  if (servers.length === 0) return `No MCP servers are configured. Add them under mcp.servers in .cadre/config.json (see the README, Models).${untrusted}`;
  return servers.map((server) => {
    const head = `${server.name}  ${server.transport}  ${server.state}${server.server ? `  (${server.server})` : ''}\n    ${server.target}`;
    if (server.state !== 'connected') return `${head}${server.error ? `\n    ✗ ${server.error}\n    → /mcp reconnect ${server.name}` : ''}`;
    const tools = server.tools.map((tool) => `${tool.name}${tool.readOnly ? '' : tool.trusted ? ' (trusted)' : ' (asks)'}`);
    return `${head}\n    ${tools.length} tool(s): ${tools.join(', ') || 'none'}`;
  }).join('\n') + untrusted;
}

export const mcpCommand = defineCommand({
  name: 'mcp',
  summary: 'List the MCP servers, their state and tools; reconnect them',
  usage: '/mcp [reconnect [<server>]]',
  examples: ['/mcp', '/mcp reconnect github'],
  positionals: ['action', 'server'],
  args: z.object({
    action: z.enum(['list', 'reconnect']).default('list').describe('list (the default) or reconnect'),
    server: z.string().min(1).optional().describe('the server to reconnect (default: every enabled one)'),
  }),
  run: async ({ action, server }, ctx) => {
    const servers = action === 'reconnect' ? await ctx.runtime.mcp.reconnect(server) : await ctx.runtime.mcp.status();
    if (action === 'reconnect') ctx.runtime.audit('mcp.reconnected', { server: server ?? 'all', states: servers.map((s) => `${s.name}:${s.state}`) });
    const trust = ctx.runtime.folderTrust;
    const ignored = trust.trusted ? [] : trust.keys.map((entry) => entry.key).filter((key) => key.startsWith('mcp.servers.')).map((key) => key.split('.')[2] ?? key);
    ctx.emit(result('mcp', { servers, ...(ignored.length ? { untrusted: ignored } : {}) }, describe(servers, ignored)));
  },
});
