// What a runner tool is (name, zod parameters, execute) and the context it runs in, inside the container.
import type { z } from 'zod';
import type { Decision } from '../../policy/index.js';
import type { RunnerEventSink } from '../events.js';

export interface RunnerToolContext {
  /** The real path of the workspace root (/workspace in the container). */
  workspace: string;
  /** The id of the tool call, for events that belong to it (command output). */
  callId: string;
  emit: RunnerEventSink;
  signal: AbortSignal;
}

/** What a tool returns: text for the model, a short line for the person. */
export interface RunnerToolReply {
  output: string;
  display: string;
  /** True when the work ran but did not succeed (a command's non-zero exit): the model sees an error. */
  failed?: boolean;
}

/** An expected refusal (no such file, ambiguous edit): a tool error for the model. */
export class RunnerToolRefusal extends Error {
  override readonly name = 'RunnerToolRefusal';
}

/** A refusal by the command or path policy: also reported to the host as a `policy.denied` event. */
export class PolicyDenial extends RunnerToolRefusal {
  constructor(readonly subject: string, readonly decision: Decision) {
    super(`denied by the policy (${decision.rule}): ${decision.reason}`);
  }
}

export interface RunnerTool<Params extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: Params;
  /** Longest the call may take before it is stopped (default 30 s); null when the tool enforces its own. */
  timeoutMs?: number | null;
  execute(params: z.infer<Params>, context: RunnerToolContext): Promise<RunnerToolReply>;
}

/** Keeps each tool's parameter type while listing them in one array. */
export const defineRunnerTool = <Params extends z.ZodType>(tool: RunnerTool<Params>): RunnerTool => tool as unknown as RunnerTool;
