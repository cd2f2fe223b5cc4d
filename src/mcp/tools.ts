// MCP tools as agent tools: named mcp__<server>__<tool>, parameters from their JSON Schema, side effects approved by the person, run through the one wrapper.
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeCall } from '../agents/tools/arguments.js';
import { defineTool, ToolRefusal, type AgentTool } from '../agents/tools/tool.js';
import { resultText } from './content.js';

/** Calls one tool of one connected server (the manager refuses when it is not connected). */
export type McpCall = (tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }) => Promise<CallToolResult>;

export interface McpToolOptions {
  server: string;
  call: McpCall;
  timeoutMs: number;
  /** Side effects allowed without asking (mcp.servers.<name>.trustedTools). */
  trusted: boolean;
}

/** A name every provider accepts (letters, digits, _ and -; 64 at most) that says where the tool comes from. */
export function agentToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/** Read-only only when the server says so: anything else may change something and asks first. */
export const isReadOnly = (tool: McpTool): boolean => tool.annotations?.readOnlyHint === true;

function parametersOf(tool: McpTool): z.ZodType {
  try {
    return z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

export function toAgentTool(tool: McpTool, options: McpToolOptions): AgentTool {
  const { server } = options;
  const readOnly = isReadOnly(tool);
  const about = (tool.description ?? tool.title ?? tool.name).slice(0, 2000);
  return defineTool({
    name: agentToolName(server, tool.name),
    kind: readOnly ? 'read' : 'write',
    description: `${about}\n(Tool "${tool.name}" of the MCP server "${server}"${readOnly ? ', read-only' : '; it may change things outside the project, so the user approves each call'}.)`,
    parameters: parametersOf(tool),
    timeoutMs: options.timeoutMs,
    ...(readOnly || options.trusted ? {} : { approval: (params: unknown) => `Allow ${server}/${tool.name} ${describeCall('', params, 160).trim()}?` }),
    async execute(params, context) {
      const result = await options.call(tool.name, (params ?? {}) as Record<string, unknown>, { signal: context.signal, timeoutMs: options.timeoutMs });
      const text = resultText(result);
      if (result.isError) throw new ToolRefusal(`${server}/${tool.name} reported an error: ${text.slice(0, 4000)}`);
      return { output: text, display: `${server}/${tool.name}` };
    },
  });
}
