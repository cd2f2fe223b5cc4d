// The MCP servers of the config: started on first need, one failure never stopping the others, their tools offered to universal-agent, /mcp's view and reconnect.
import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../agents/tools/tool.js';
import { ToolRefusal } from '../agents/tools/tool.js';
import { say, type OutputSink } from '../output.js';
import { CadreError, exitCodes } from '../errors.js';
import type { Config } from '../store/config-schema.js';
import { redactText } from '../store/redact.js';
import { isReadOnly, toAgentTool, type McpCall } from './tools.js';

export type McpServerConfig = Config['mcp']['servers'][string];
export type McpServerState = 'disabled' | 'not started' | 'connecting' | 'connected' | 'failed' | 'disconnected';

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line or the URL (never a header or an environment value). */
  target: string;
  state: McpServerState;
  /** Why it failed or stopped. */
  error?: string;
  /** The server's own name and version, once connected. */
  server?: string;
  tools: { name: string; readOnly: boolean; trusted: boolean }[];
  /** The process id of a stdio server. */
  pid?: number;
}

interface Entry {
  name: string;
  config: McpServerConfig;
  state: McpServerState;
  error?: string;
  client?: Client;
  pid?: number;
  server?: string;
  tools: McpTool[];
  /** The last output of a stdio server on stderr, for the message when it fails. */
  stderr: string;
  connecting?: Promise<void>;
}

/** One tool of a connected server as the server describes it, with the way to call it. */
export interface McpServedTool {
  server: string;
  tool: McpTool;
  /** Listed in mcp.servers.<name>.trustedTools. */
  trusted: boolean;
  timeoutMs: number;
  call: McpCall;
}

export interface McpManager {
  /** The tools of every connected server (connecting those not started yet first), as agent tools. */
  tools(): Promise<AgentTool[]>;
  /** The same tools as the servers describe them (their JSON Schemas), for the gateway to offer containers. */
  served(): Promise<McpServedTool[]>;
  /** Every configured server with its state (connecting those not started yet first). */
  status(): Promise<McpServerStatus[]>;
  /** Closes and connects again one server, or every enabled one. */
  reconnect(name?: string): Promise<McpServerStatus[]>;
  close(): Promise<void>;
}

/** The error's words, with the HTTP status a streamable-HTTP failure carries as its code; secrets redacted. */
function describeError(error: unknown): string {
  const status = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  return redactText(typeof status === 'number' && status >= 100 && status < 600 ? `HTTP ${status}: ${text}` : text);
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createMcpManager(options: {
  servers: Record<string, McpServerConfig>; cwd: string; sink: OutputSink; version: string;
  /** How a stopped or failed server comes back, for the messages; default: /mcp reconnect. */
  reconnectHint?: (name: string) => string;
}): McpManager {
  const reconnectHint = options.reconnectHint ?? ((name: string) => `/mcp reconnect ${name}`);
  const entries = new Map<string, Entry>(Object.entries(options.servers).map(([name, config]) => [name, {
    name, config, state: config.enabled ? 'not started' : 'disabled', tools: [], stderr: '',
  }]));

  const stderrTail = (entry: Entry): string => {
    const tail = entry.stderr.trim().split('\n').slice(-3).join(' | ');
    return tail ? ` (its last output: ${redactText(tail).slice(0, 400)})` : '';
  };

  const connect = async (entry: Entry): Promise<void> => {
    entry.state = 'connecting';
    entry.error = undefined;
    entry.stderr = '';
    const { config } = entry;
    const [{ Client: ClientClass }, transport] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      (async () => {
        if ('command' in config) {
          const [{ getDefaultEnvironment }, { GroupedStdioTransport }] = await Promise.all([
            import('@modelcontextprotocol/sdk/client/stdio.js'), import('./stdio-transport.js'),
          ]);
          return new GroupedStdioTransport({
            command: config.command, args: config.args, env: { ...getDefaultEnvironment(), ...config.env }, cwd: resolve(options.cwd, config.cwd ?? '.'),
            onStderr: (text) => void (entry.stderr = (entry.stderr + text).slice(-2000)),
          });
        }
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
      })(),
    ]);
    const client = new ClientClass({ name: 'cadre', version: options.version });
    client.onclose = () => {
      if (entry.client !== client || entry.state !== 'connected') return;
      entry.state = 'disconnected';
      entry.error = `the server stopped${stderrTail(entry)}`;
      options.sink(say(`MCP server "${entry.name}" stopped${stderrTail(entry)}; its tools are unavailable until ${reconnectHint(entry.name)}. Everything else keeps working.`, 'warn'));
    };
    const startupMs = config.startupTimeoutSeconds * 1000;
    try {
      await withTimeout(client.connect(transport, { timeout: startupMs }), startupMs, 'starting the server');
      const tools: McpTool[] = [];
      for (let cursor: string | undefined, pages = 0; pages < 20; pages += 1) {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: startupMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      entry.client = client;
      entry.pid = 'pid' in transport ? (transport.pid ?? undefined) : undefined;
      const version = client.getServerVersion();
      entry.server = version ? `${version.name} ${version.version}` : undefined;
      entry.tools = tools.filter((tool) => !config.disabledTools.includes(tool.name));
      entry.state = 'connected';
    } catch (error) {
      entry.state = 'failed';
      entry.error = `${describeError(error)}${stderrTail(entry)}`;
      await client.close().catch(() => undefined);
      options.sink(say(`MCP server "${entry.name}" failed to start: ${entry.error}. Check mcp.servers.${entry.name} with \`cadre config\`; ${reconnectHint(entry.name)} tries again. Everything else keeps working.`, 'warn'));
    }
  };

  const ensure = (entry: Entry): Promise<void> => {
    if (entry.state !== 'not started') return entry.connecting ?? Promise.resolve();
    entry.connecting = connect(entry).finally(() => (entry.connecting = undefined));
    return entry.connecting;
  };
  const ensureAll = (): Promise<void> => Promise.all([...entries.values()].map(ensure)).then(() => undefined);

  const callOf = (entry: Entry) => async (tool: string, args: Record<string, unknown>, call: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> => {
    const client = entry.client;
    if (entry.state !== 'connected' || !client) {
      throw new ToolRefusal(`the MCP server "${entry.name}" is not connected${entry.error ? ` (${entry.error})` : ''}; the user can reconnect it with /mcp reconnect ${entry.name}`);
    }
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal: call.signal, timeout: call.timeoutMs })) as CallToolResult;
    } catch (error) {
      if (entry.state !== 'connected') throw new ToolRefusal(`the MCP server "${entry.name}" stopped during the call${stderrTail(entry)}`);
      throw new Error(describeError(error), { cause: error });
    }
  };

  const statusOf = (entry: Entry): McpServerStatus => ({
    name: entry.name,
    transport: 'command' in entry.config ? 'stdio' : 'http',
    target: 'command' in entry.config ? [entry.config.command, ...entry.config.args].join(' ') : entry.config.url,
    state: entry.state,
    ...(entry.error ? { error: entry.error } : {}),
    ...(entry.server ? { server: entry.server } : {}),
    ...(entry.pid ? { pid: entry.pid } : {}),
    tools: entry.tools.map((tool) => ({ name: tool.name, readOnly: isReadOnly(tool), trusted: entry.config.trustedTools.includes(tool.name) })),
  });

  const closeEntry = async (entry: Entry): Promise<void> => {
    const client = entry.client;
    entry.client = undefined;
    entry.tools = [];
    entry.pid = undefined;
    await client?.close().catch(() => undefined);
  };

  const served = async (): Promise<McpServedTool[]> => {
    await ensureAll();
    return [...entries.values()].filter((entry) => entry.state === 'connected').flatMap((entry) => entry.tools.map((tool) => ({
      server: entry.name, tool, call: callOf(entry), timeoutMs: entry.config.timeoutSeconds * 1000, trusted: entry.config.trustedTools.includes(tool.name),
    })));
  };

  return {
    async tools() {
      return (await served()).map(({ tool, ...rest }) => toAgentTool(tool, rest));
    },
    served,
    async status() {
      await ensureAll();
      return [...entries.values()].map(statusOf);
    },
    async reconnect(name) {
      const chosen = name === undefined ? [...entries.values()].filter((entry) => entry.config.enabled) : [entries.get(name)].filter((entry): entry is Entry => entry !== undefined);
      if (name !== undefined && chosen.length === 0) {
        throw new CadreError('mcp.unknown-server', `There is no MCP server named "${name}" in the config.`, {
          remedy: entries.size ? `Configured: ${[...entries.keys()].join(', ')}.` : 'Add one under mcp.servers in .cadre/config.json (see the README, Models).',
          exitCode: exitCodes.usage,
        });
      }
      for (const entry of chosen) {
        await entry.connecting;
        await closeEntry(entry);
        entry.state = 'not started';
        await ensure(entry);
      }
      return [...entries.values()].map(statusOf);
    },
    async close() {
      await Promise.all([...entries.values()].map(async (entry) => {
        await entry.connecting?.catch(() => undefined);
        entry.state = entry.config.enabled ? 'not started' : 'disabled';
        await closeEntry(entry);
      }));
    },
  };
}
