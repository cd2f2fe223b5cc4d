// The tool kernel's types, shared by universal-agent on the host and vm-agent in the container: what a tool is, the files it works on, how it refuses.
import type { z } from 'zod';
import type { Decision } from '../../policy/decision.js';

export type ToolKind = 'read' | 'write' | 'exec' | 'network';
export type Access = 'read' | 'write';

/** What a change is for, in one line: the host shows it in the plan; the container has no plan. */
export interface ChangeNote {
  summary?: string;
}

/** One file of a listing; `staged` when the listing shows a change not yet on disk. */
export interface ListedFile {
  path: string;
  staged: boolean;
}

/**
 * The files a tool works on: the person's project seen through the staged plan (host), or the container's
 * workspace, written at once. Paths the model gives go through `confine`; the rest takes confined paths.
 */
export interface ToolFiles {
  /** The real path of the root. */
  readonly root: string;
  /** True when writes are staged for the person's approval (host), false when they land at once (container). */
  readonly staging: boolean;
  /** The root-relative path ('.' for the root) of `path` when `access` to it is allowed; throws a PathDenial or a PolicyDenial. */
  confine(path: string, access: Access): string;
  /** Current content; null when the file does not exist or is a folder. Over `maxBytes` it is refused unread. */
  read(relPath: string, options?: ReadOptions): Promise<Buffer | null>;
  isFolder(relPath: string): Promise<boolean>;
  /** Writes (host: stages) new content; the caller has checked its size. */
  write(relPath: string, content: string, note: ChangeNote): Promise<void>;
  /** The readable files under a folder as git sees them, with `hidden` counting those the permissions hide. */
  list(relDir: string): Promise<{ files: ListedFile[]; truncated: boolean; hidden: number }>;
}

export interface ReadOptions {
  maxBytes?: number;
}

export interface ToolContext {
  files: ToolFiles;
  signal: AbortSignal;
}

/** What a tool returns: text for the model, a short line for the person. */
export interface ToolReply {
  output: string;
  display: string;
  /** The work ran but did not succeed (a command's non-zero exit): the model sees an error. */
  failed?: boolean;
}

/** An expected refusal (limit, binary file, no match): a tool error for the model and a line for the person. */
export class ToolRefusal extends Error {
  override readonly name: string = 'ToolRefusal';
}

/** A path the person's permissions deny (host). */
export class PathDenial extends ToolRefusal {
  override readonly name = 'PathDenial';
}

/** A refusal by the command or path policy (container): also reported to the host as a `policy.denied` event. */
export class PolicyDenial extends ToolRefusal {
  override readonly name = 'PolicyDenial';
  constructor(readonly subject: string, readonly decision: Decision) {
    super(`denied by the policy (${decision.rule}): ${decision.reason}`);
  }
}

export interface AgentTool<Params extends z.ZodType = z.ZodType, Context extends ToolContext = ToolContext> {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: Params;
  /** The paths a call touches; the kernel confines them and checks them against the kind's access before the call runs. */
  paths?: (params: z.infer<Params>) => string[];
  /** For a call with side effects outside the staged plan (an integration's tool): the question the person must answer yes to first. */
  approval?: (params: z.infer<Params>) => string | null;
  /** Its own time limit instead of the run's; null when the tool enforces its own, and ends its work on abort itself. */
  timeoutMs?: number | null;
  execute(params: z.infer<Params>, context: Context): Promise<ToolReply>;
}

/** Keeps the parameter type of each tool while listing them in one array. */
export const defineTool = <Params extends z.ZodType, Context extends ToolContext = ToolContext>(tool: AgentTool<Params, Context>): AgentTool<z.ZodType, Context> =>
  tool as unknown as AgentTool<z.ZodType, Context>;
