// What an agent tool is (name, kind, zod parameters, execute), the context it runs in, and how it refuses.
import type { z } from 'zod';
import type { PlanAction } from '../../capabilities/plan-draft.js';
import type { Permissions } from './permissions.js';
import type { StagedView } from './staged-view.js';

export type ToolKind = 'read' | 'write' | 'exec' | 'network';

/** Notes the model attaches to the plan while it works; read when the plan is drafted. */
export interface PlanNotes {
  title?: string;
  summaries: Map<string, { summary: string; action?: PlanAction }>;
  /** Set by propose-plan: the model says the plan is complete. */
  proposed: boolean;
}

export interface ToolContext {
  root: string;
  view: StagedView;
  permissions: Permissions;
  plan: PlanNotes;
  signal: AbortSignal;
}

/** What a tool returns: text for the model, a short line for the person. */
export interface ToolReply {
  output: string;
  display: string;
}

/** An expected refusal (limit, binary file, no match): a tool error for the model and a line for the user. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
}

export interface AgentTool<Params extends z.ZodType = z.ZodType> {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: Params;
  /** The project paths a call touches; the wrapper confines them and checks them against the kind's permission. */
  paths?: (params: z.infer<Params>) => string[];
  /** For a call with side effects outside the staged plan (an integration's tool): the question the person must answer yes to first. */
  approval?: (params: z.infer<Params>) => string | null;
  /** Its own time limit, instead of the run's. */
  timeoutMs?: number;
  execute(params: z.infer<Params>, context: ToolContext): Promise<ToolReply>;
}

/** Keeps the parameter type of each tool while listing them in one array. */
export const defineTool = <Params extends z.ZodType>(tool: AgentTool<Params>): AgentTool => tool as unknown as AgentTool;

/** The project-relative path of a path the wrapper has already checked. */
export function projectPath(context: ToolContext, path: string, access: 'read' | 'write'): string {
  const decision = context.permissions.check(path, access);
  if (!decision.ok) throw new ToolRefusal(decision.reason);
  return decision.relPath;
}
