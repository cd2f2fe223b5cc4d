// The one wrapper every tool call goes through: validation, confinement, permissions, timeout, truncation, audit.
import type { ToolResult } from '../../model/types.js';
import { elideLongStrings, oversizedArguments } from './arguments.js';
import { ToolRefusal, type AgentTool, type ToolContext } from './tool.js';

export interface ToolAuditEntry {
  tool: string;
  kind: AgentTool['kind'];
  input: unknown;
  outcome: 'ok' | 'refused' | 'error';
  detail: string;
}

export interface ToolRunOptions {
  timeoutMs?: number;
  /** Longest output handed to the model, in characters. */
  maxOutputChars?: number;
  /** Longest arguments accepted, as JSON characters. */
  maxArgumentChars?: number;
  audit?: (entry: ToolAuditEntry) => void;
  /** Asks the person to approve a call with side effects; absent when no one can answer (cadre -c). */
  ask?: (question: string) => Promise<boolean>;
}

export interface ToolRun {
  result: ToolResult;
  /** One line for the person. */
  display: string;
  outcome: ToolAuditEntry['outcome'];
}

const defaults = { timeoutMs: 30_000, maxOutputChars: 120_000 };

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [output truncated: ${text.length - max} more characters; narrow the request]`;
}

function withTimeout<T>(work: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (message: string) => reject(new ToolRefusal(message));
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
export async function runTool(
  tool: AgentTool | undefined,
  call: { id: string; name: string; input: unknown },
  context: ToolContext,
  options: ToolRunOptions = {},
): Promise<ToolRun> {
  const settings = { ...defaults, ...options };
  const finish = (outcome: ToolRun['outcome'], output: string, display: string): ToolRun => {
    // Long values (file contents, an oversized argument) are not copied into the audit trail whole.
    options.audit?.({ tool: call.name.slice(0, 100), kind: tool?.kind ?? 'read', input: elideLongStrings(call.input, 4096), outcome, detail: outcome === 'ok' ? display : output });
    return { outcome, display, result: { id: call.id, name: call.name, output: truncate(output, settings.maxOutputChars), isError: outcome !== 'ok' } };
  };
  const name = call.name.slice(0, 100);
  if (!tool) return finish('refused', `There is no tool named "${name}".`, `✗ unknown tool ${name}`);
  const oversized = oversizedArguments(call.input, options.maxArgumentChars);
  if (oversized) return finish('refused', `Refused: ${oversized}.`, `✗ ${tool.name}: ${oversized.split(';')[0]}`);
  if (tool.kind === 'exec' || tool.kind === 'network') {
    return finish('refused', `${tool.name} needs ${tool.kind} access, which universal-agent does not have. Ask the user to run commands with /exec.`, `✗ ${tool.name}: ${tool.kind} access is not available`);
  }
  const parsed = tool.parameters.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    return finish('refused', `Invalid parameters for ${tool.name}: ${issues}`, `✗ ${tool.name}: invalid parameters`);
  }
  for (const path of tool.paths?.(parsed.data) ?? []) {
    const decision = context.permissions.check(path, tool.kind === 'write' ? 'write' : 'read');
    if (!decision.ok) return finish('refused', `Permission denied: ${decision.reason}.`, `✗ ${tool.name}: ${decision.reason}`);
  }
  const question = tool.approval?.(parsed.data);
  if (question) {
    if (!options.ask) {
      return finish('refused', `${tool.name} has side effects and needs the user's approval, and no one can approve it in this run (cadre -c). Do without it, or tell the user to run the task at the cadre prompt.`, `✗ ${tool.name}: needs approval, and there is no prompt to ask at`);
    }
    if (!(await options.ask(question))) return finish('refused', 'The user declined this call. Do not repeat it; ask the user how to proceed if it is needed.', `✗ ${tool.name}: declined`);
  }
  try {
    const reply = await withTimeout(tool.execute(parsed.data, context), tool.timeoutMs ?? settings.timeoutMs, context.signal);
    return finish('ok', reply.output, reply.display);
  } catch (error) {
    if (error instanceof ToolRefusal) return finish('refused', `Refused: ${error.message}.`, `✗ ${tool.name}: ${error.message}`);
    const message = error instanceof Error ? error.message : String(error);
    return finish('error', `The tool failed: ${message}`, `✗ ${tool.name} failed: ${message}`);
  }
}
