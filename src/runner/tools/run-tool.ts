// The runner's side of the tool kernel: each call told to the host as `tool.call`, `tool.result` and (for policy refusals) `policy.denied`.
import type { z } from 'zod';
import { runTool, type ToolRun } from '../../agents/tools/wrapper.js';
import type { AgentTool, ToolContext } from '../../agents/tools/tool.js';
import type { ToolCall, ToolResult } from '../../model/types.js';
import type { RunnerEventSink } from '../events.js';
import { createWorkspaceFiles } from './workspace-files.js';

/** What a runner tool sees: the workspace, and the call's id for the events that belong to it (command output). */
export interface RunnerToolContext extends ToolContext {
  callId: string;
  emit: RunnerEventSink;
}

export type RunnerTool = AgentTool<z.ZodType, RunnerToolContext>;

/** Tool output is shorter in the container than on the host: the runner's turns pay for it from the session's budget. */
const maxOutputChars = 60_000;

/** Runs one tool call the model made through the kernel. Never throws: every failure becomes a tool error the model can read. */
export async function runRunnerTool(
  tools: readonly RunnerTool[],
  call: ToolCall,
  context: { workspace: string; emit: RunnerEventSink; signal: AbortSignal; onOutcome?: (run: ToolRun) => void },
): Promise<ToolResult> {
  const { emit } = context;
  emit({ type: 'tool.call', id: call.id, name: call.name, input: call.input });
  const files = createWorkspaceFiles(context.workspace);
  const run = await runTool(tools, call, { files, signal: context.signal, emit, callId: call.id }, {
    maxOutputChars,
    onPolicyDenial: (tool, denial) => emit({ type: 'policy.denied', tool, subject: denial.subject, rule: denial.decision.rule, reason: denial.decision.reason }),
  });
  emit({ type: 'tool.result', id: call.id, name: call.name, ok: run.outcome === 'ok', display: run.display });
  context.onOutcome?.(run);
  return run.result;
}
