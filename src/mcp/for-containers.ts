// The MCP servers offered to vm-agent containers (mcp.servers.<name>.containers): run on the host with the host's
// credentials, reached only through each container's gateway. Only tools without side effects, or listed in trustedTools,
// are offered: in a container nobody is there to approve a call.
import { ToolRefusal } from '../agents/tools/tool.js';
import type { OutputSink } from '../output.js';
import { resultText } from './content.js';
import { createMcpManager, type McpServedTool, type McpServerConfig } from './manager.js';
import { agentToolName, isReadOnly } from './tools.js';

/** A tool as a container sees it: the name the model calls, where it comes from, its JSON Schema and time limit. */
export interface ContainerMcpTool {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
  timeoutMs: number;
}

export type ContainerMcpRefusalReason = 'unknown-server' | 'not-for-containers' | 'unknown-tool' | 'side-effects' | 'unavailable';

/** A call the gateway refuses or cannot make, with the reason it audits and the words the model reads. */
export class ContainerMcpRefusal extends Error {
  override readonly name = 'ContainerMcpRefusal';
  constructor(readonly reason: ContainerMcpRefusalReason, message: string) {
    super(message);
  }
}

export interface ContainerMcp {
  /** The servers offered to containers. */
  readonly servers: readonly string[];
  /** What their configuration holds that a server could print (env and header values, URL credentials): the gateway removes them from replies. */
  readonly secrets: readonly string[];
  list(): Promise<ContainerMcpTool[]>;
  /** Calls one offered tool; refusals are ContainerMcpRefusal, a time-out or a server's failure an Error. */
  call(server: string, tool: string, args: Record<string, unknown>, options: { signal: AbortSignal }): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

/** A server that stopped or failed to start is started again on a later call, at most this often. */
const restartIntervalMs = 10_000;
const maxDescriptionChars = 2_000;

const offered = (served: McpServedTool): boolean => isReadOnly(served.tool) || served.trusted;

/** The MCP servers containers may use (enabled, with `containers: true`); undefined when there is none. */
export function createContainerMcp(options: { servers: Record<string, McpServerConfig>; cwd: string; sink: OutputSink; version: string }): ContainerMcp | undefined {
  const chosen = Object.fromEntries(Object.entries(options.servers).filter(([, config]) => config.enabled && config.containers));
  const names = Object.keys(chosen);
  if (names.length === 0) return undefined;
  const manager = createMcpManager({
    servers: chosen, cwd: options.cwd, sink: options.sink, version: options.version,
    reconnectHint: () => 'a container calls one of them again (cadre starts it again then)',
  });
  const restartedAt = new Map<string, number>();

  /** The server's tools; a server that stopped or failed is started again first (not more than once per interval). */
  const toolsOf = async (server: string): Promise<{ tools: McpServedTool[]; error?: string }> => {
    const status = (await manager.status()).find((entry) => entry.name === server);
    if (status && (status.state === 'disconnected' || status.state === 'failed') && Date.now() - (restartedAt.get(server) ?? 0) >= restartIntervalMs) {
      restartedAt.set(server, Date.now());
      await manager.reconnect(server);
    }
    const tools = (await manager.served()).filter((served) => served.server === server);
    const after = (await manager.status()).find((entry) => entry.name === server);
    return { tools, ...(after?.state === 'connected' ? {} : { error: after?.error ?? `it is ${after?.state ?? 'unknown'}` }) };
  };

  return {
    servers: names,
    secrets: Object.values(chosen).flatMap(configuredSecrets),
    async list() {
      return (await manager.served()).filter(offered).map((served) => ({
        name: agentToolName(served.server, served.tool.name),
        server: served.server,
        tool: served.tool.name,
        description: (served.tool.description ?? served.tool.title ?? served.tool.name).slice(0, maxDescriptionChars),
        inputSchema: served.tool.inputSchema,
        timeoutMs: served.timeoutMs,
      }));
    },
    async call(server, tool, args, callOptions) {
      if (!(server in options.servers)) throw new ContainerMcpRefusal('unknown-server', `there is no MCP server named "${server}"`);
      if (!names.includes(server)) throw new ContainerMcpRefusal('not-for-containers', `the MCP server "${server}" is not offered to containers (mcp.servers.${server}.containers is not true)`);
      const { tools, error } = await toolsOf(server);
      if (error !== undefined) throw new ContainerMcpRefusal('unavailable', `the MCP server "${server}" is not available: ${error}`);
      const served = tools.find((candidate) => candidate.tool.name === tool);
      if (!served) throw new ContainerMcpRefusal('unknown-tool', `the MCP server "${server}" has no tool named "${tool}"`);
      if (!offered(served)) throw new ContainerMcpRefusal('side-effects', `${server}/${tool} may change things outside the container and is not in mcp.servers.${server}.trustedTools, so containers may not call it`);
      try {
        const result = await served.call(tool, args, { signal: callOptions.signal, timeoutMs: served.timeoutMs });
        return { text: resultText(result), isError: result.isError === true };
      } catch (failure) {
        // The manager's refusal: the server stopped during the call (or just before it).
        if (failure instanceof ToolRefusal) throw new ContainerMcpRefusal('unavailable', failure.message);
        throw failure;
      }
    },
    close: () => manager.close(),
  };
}

/** A server's env and header values, the token after an auth scheme (`Bearer …`), and the password and query values of its URL. */
function configuredSecrets(config: McpServerConfig): string[] {
  const values = 'url' in config ? Object.values(config.headers) : Object.values(config.env);
  const tokens = values.flatMap((value) => /^\w+\s+(\S+)$/.exec(value.trim())?.[1] ?? []);
  if (!('url' in config)) return [...values, ...tokens];
  const url = new URL(config.url);
  return [...values, ...tokens, ...(url.password === '' ? [] : [decodeURIComponent(url.password)]), ...url.searchParams.values()];
}
