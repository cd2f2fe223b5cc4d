// The one wrapper every runner tool call goes through: validation, timeout, policy-denial events, truncation.
import type { ToolCall, ToolResult } from '../../model/types.js';
import type { RunnerEventSink } from '../events.js';
import { PolicyDenial, RunnerToolRefusal, type RunnerTool } from './tool.js';

const defaultTimeoutMs = 30_000;
const maxOutputChars = 60_000;

function truncate(text: string): string {
  if (text.length <= maxOutputChars) return text;
  return `${text.slice(0, maxOutputChars)}\n… [output truncated: ${text.length - maxOutputChars} more characters; narrow the request]`;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RunnerToolRefusal(`the tool took longer than ${ms / 1000} s and was stopped`)), ms);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * Runs one tool call the model made, emitting `tool.call`, `tool.result` and (for refusals by the
 * policy) `policy.denied`. Never throws: every failure becomes a tool error the model can read.
 */
export async function runRunnerTool(
  tools: readonly RunnerTool[],
  call: ToolCall,
  context: { workspace: string; emit: RunnerEventSink; signal: AbortSignal },
): Promise<ToolResult> {
  const { emit } = context;
  emit({ type: 'tool.call', id: call.id, name: call.name, input: call.input });
  const finish = (ok: boolean, output: string, display: string): ToolResult => {
    emit({ type: 'tool.result', id: call.id, name: call.name, ok, display });
    return { id: call.id, name: call.name, output: truncate(output), isError: !ok };
  };
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) return finish(false, `There is no tool named "${call.name}". The tools are: ${tools.map((t) => t.name).join(', ')}.`, `unknown tool ${call.name}`);
  const parsed = tool.parameters.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    return finish(false, `Invalid parameters for ${tool.name}: ${issues}`, `${tool.name}: invalid parameters`);
  }
  try {
    const work = tool.execute(parsed.data, { ...context, callId: call.id });
    const reply = await (tool.timeoutMs === null ? work : withTimeout(work, tool.timeoutMs ?? defaultTimeoutMs));
    return finish(!reply.failed, reply.output, reply.display);
  } catch (error) {
    if (error instanceof PolicyDenial) {
      emit({ type: 'policy.denied', tool: tool.name, subject: error.subject, rule: error.decision.rule, reason: error.decision.reason });
      const notRun = tool.name === 'run-command' ? ' The command was not run.' : '';
      return finish(false, `Refused: ${error.message}.${notRun}`, `${tool.name}: denied (${error.decision.rule})`);
    }
    if (error instanceof RunnerToolRefusal) return finish(false, `Refused: ${error.message}.`, `${tool.name}: ${error.message}`);
    const message = error instanceof Error ? error.message : String(error);
    return finish(false, `The tool failed: ${message}`, `${tool.name} failed: ${message}`);
  }
}
