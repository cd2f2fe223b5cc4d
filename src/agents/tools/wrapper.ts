// The tool kernel: the one wrapper every tool call goes through, on the host and in the container (validation,
// argument size, kinds, confinement, approval, timeout and abort, truncation, audit).
import type { z } from 'zod';
import type { ToolResult } from '../../model/types.js';
import { elideLongStrings, oversizedArguments } from './arguments.js';
import { PathDenial, PolicyDenial, ToolRefusal, type AgentTool, type ToolContext, type ToolKind } from './tool.js';

export interface ToolAuditEntry {
  tool: string;
  kind: ToolKind;
  input: unknown;
  outcome: 'ok' | 'refused' | 'error';
  detail: string;
}

export interface ToolRunOptions {
  /** The time limit of a tool without its own (default 30 s). */
  timeoutMs?: number;
  /** Longest output handed to the model, in characters (default 120,000). */
  maxOutputChars?: number;
  /** Longest arguments accepted, as JSON characters. */
  maxArgumentChars?: number;
  /** The kinds of tool this agent may use (default all); a call to another is refused with `kindRefusal`. */
  kinds?: readonly ToolKind[];
  kindRefusal?: (tool: { name: string; kind: ToolKind }) => string;
  audit?: (entry: ToolAuditEntry) => void;
  /** Asks the person to approve a call with side effects; absent when no one can answer (cadre -c, the container). */
  ask?: (question: string) => Promise<boolean>;
  /** Told of every refusal by the command or path policy, before the call's result. */
  onPolicyDenial?: (tool: string, denial: PolicyDenial) => void;
}

export interface ToolRun {
  result: ToolResult;
  /** One line for the person (the caller marks a refused or failed call). */
  display: string;
  outcome: ToolAuditEntry['outcome'];
}

const defaults = { timeoutMs: 30_000, maxOutputChars: 120_000 };

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [output truncated: ${text.length - max} more characters; narrow the request]`;
}

/**
 * The work's result, unless the time limit or the run's abort comes first: either ends the call at once. A tool with
 * its own limit (null) is awaited: it ends its processes on abort itself, and the call must not end before they do.
 */
function bounded<T>(work: Promise<T>, ms: number | null, signal: AbortSignal): Promise<T> {
  if (ms === null) return work;
  return new Promise<T>((resolve, reject) => {
    const fail = (message: string) => reject(new ToolRefusal(message));
    if (signal.aborted) return fail('cancelled');
    const timer = setTimeout(() => fail(`the tool took longer than ${ms / 1000} s and was stopped`), ms);
    const onAbort = () => fail('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** Runs one tool call the model made. Never throws: every failure becomes a tool error the model can read. */
export async function runTool<Context extends ToolContext>(
  tools: readonly AgentTool<z.ZodType, Context>[],
  call: { id: string; name: string; input: unknown },
  context: Context,
  options: ToolRunOptions = {},
): Promise<ToolRun> {
  const settings = { ...defaults, ...options };
  const name = call.name.slice(0, 100);
  const tool = tools.find((candidate) => candidate.name === call.name);
  const finish = (outcome: ToolRun['outcome'], output: string, display: string): ToolRun => {
    // Long values (file contents, an oversized argument) are not copied into the audit trail whole.
    options.audit?.({ tool: name, kind: tool?.kind ?? 'read', input: elideLongStrings(call.input, 4096), outcome, detail: outcome === 'ok' ? display : output });
    return { outcome, display, result: { id: call.id, name: call.name, output: truncate(output, settings.maxOutputChars), isError: outcome !== 'ok' } };
  };
  const refused = (error: ToolRefusal, label: string): ToolRun => {
    if (error instanceof PolicyDenial) {
      options.onPolicyDenial?.(label, error);
      const notRun = label === 'run-command' ? ' The command was not run.' : '';
      return finish('refused', `Refused: ${error.message}.${notRun}`, `${label}: denied (${error.decision.rule})`);
    }
    if (error instanceof PathDenial) return finish('refused', `Permission denied: ${error.message}.`, `${label}: ${error.message}`);
    return finish('refused', `Refused: ${error.message}.`, `${label}: ${error.message}`);
  };

  if (!tool) return finish('refused', `There is no tool named "${name}". The tools are: ${tools.map((known) => known.name).join(', ')}.`, `unknown tool ${name}`);
  const oversized = oversizedArguments(call.input, options.maxArgumentChars);
  if (oversized) return finish('refused', `Refused: ${oversized}.`, `${tool.name}: ${oversized.split(';')[0]}`);
  if (options.kinds && !options.kinds.includes(tool.kind)) {
    return finish('refused', options.kindRefusal?.(tool) ?? `${tool.name} needs ${tool.kind} access, which this agent does not have.`, `${tool.name}: ${tool.kind} access is not available`);
  }
  const parsed = tool.parameters.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    return finish('refused', `Invalid parameters for ${tool.name}: ${issues}`, `${tool.name}: invalid parameters`);
  }
  try {
    for (const path of tool.paths?.(parsed.data) ?? []) context.files.confine(path, tool.kind === 'write' ? 'write' : 'read');
    const question = tool.approval?.(parsed.data);
    if (question) {
      if (!options.ask) {
        return finish('refused', `${tool.name} has side effects and needs the user's approval, and no one can approve it in this run (cadre -c). Do without it, or tell the user to run the task at the cadre prompt.`, `${tool.name}: needs approval, and there is no prompt to ask at`);
      }
      if (!(await options.ask(question))) return finish('refused', 'The user declined this call. Do not repeat it; ask the user how to proceed if it is needed.', `${tool.name}: declined`);
    }
    const reply = await bounded(tool.execute(parsed.data, context), tool.timeoutMs === undefined ? settings.timeoutMs : tool.timeoutMs, context.signal);
    return finish(reply.failed ? 'error' : 'ok', reply.output, reply.display);
  } catch (error) {
    if (error instanceof ToolRefusal) return refused(error, tool.name);
    const message = error instanceof Error ? error.message : String(error);
    return finish('error', `The tool failed: ${message}`, `${tool.name} failed: ${message}`);
  }
}
