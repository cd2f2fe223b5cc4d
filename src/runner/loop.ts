// The vm-agent loop in the container: stream model turns, run tools, report usage, and end with exactly one outcome.
import { CadreError, isCadreError } from '../errors.js';
import { runAgentLoop, type AgentTurn } from '../agents/loop.js';
import { createLoopGuard, describeRepetition, type GuardVerdict } from '../agents/loop-guard.js';
import { describeCall } from '../agents/tools/arguments.js';
import type { ToolRun } from '../agents/tools/wrapper.js';
import type { ChatMessage, ModelClient, TokenUsage, ToolResult } from '../model/types.js';
import { addUsage, zeroUsage } from '../model/types.js';
import type { RunnerEvent, RunnerEventSink } from './events.js';
import { runnerContinuationTurn, runnerSystemPrompt, runnerTaskTurn } from './prompt.js';
import { runRunnerTool, type RunnerTool } from './tools/run-tool.js';

export interface RunnerLoopInput {
  task: string;
  attempt: number;
  /** The real path of the workspace root. */
  workspace: string;
  model: ModelClient;
  tools: readonly RunnerTool[];
  emit: RunnerEventSink;
  signal: AbortSignal;
  /** Most model turns before the run gives up (default 50). */
  maxTurns?: number;
  /** Output cap per model turn (default 8,192). The gateway reserves it from the budget before each call. */
  maxOutputTokens?: number;
  /** The conversation of this task's earlier attempts (from its journal): continued, never replayed. */
  history?: ChatMessage[];
  /** Told each message as it joins the conversation (a turn's calls before they run), to keep it for a later attempt. */
  onMessage?: (message: ChatMessage) => void;
}

export type RunnerOutcome = Extract<RunnerEvent, { type: 'runner.finished' | 'runner.failed' | 'runner.budget-exhausted' }>;

/** The gateway refuses a call over the session's budget with a 429 that says so. */
export function isBudgetExhausted(error: unknown): boolean {
  return isCadreError(error) && error.code === 'model.rate-limited' && /token budget exhausted/i.test(error.message);
}

function failure(error: unknown, signal: AbortSignal, usage: TokenUsage): RunnerOutcome {
  if (isBudgetExhausted(error)) return { type: 'runner.budget-exhausted', message: (error as Error).message, usage };
  if (signal.aborted) return { type: 'runner.failed', code: 'runner.cancelled', message: 'The runner was stopped before it finished.', remedy: '' };
  if (isCadreError(error)) return { type: 'runner.failed', code: error.code, message: error.message, remedy: error.remedy };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { type: 'runner.failed', code: 'runner.crashed', message: `The runner hit an unexpected error: ${message}`, remedy: 'This is a bug in cadre; the task is retried.' };
}

/** Why the run stopped going round in circles, in words for the person. */
function repetitionStop(verdict: Extract<GuardVerdict, { kind: 'stop' }>, call: string): CadreError {
  const code = verdict.reason === 'refused' ? 'runner.repeated-refusal' : 'runner.repeated-call';
  return new CadreError(code, `vm-agent made ${describeRepetition(verdict)} (${call}), so the task was stopped before it spent more of the budget on it.`, {
    remedy: 'The changes so far are in the workspace. Run /agent vm-agent again with a narrower task, or say what to do differently'
      + (verdict.reason === 'refused' ? '; if the call should be allowed, change the container policy.' : '.'),
  });
}

/** Runs the task to its end through the agents' one loop. Never throws: every ending is an outcome (the caller emits it). */
export async function runVmAgentLoop(input: RunnerLoopInput): Promise<RunnerOutcome> {
  const { emit, model, signal, tools } = input;
  const maxTurns = input.maxTurns ?? 50;
  // Without a cap the AI SDK asks for the model's maximum (64k and more), which alone exceeds a 50,000-token session budget.
  const maxOutputTokens = input.maxOutputTokens ?? 8_192;
  const system = runnerSystemPrompt();
  const specs = tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  let usage = zeroUsage();
  const turnLimit: RunnerOutcome = {
    type: 'runner.failed',
    code: 'runner.turn-limit',
    message: `vm-agent used its ${maxTurns} model turns without finishing.`,
    remedy: 'Split the task into smaller ones; the changes so far are in the workspace.',
  };
  const keep = input.onMessage ?? (() => undefined);
  const history = input.history ?? [];
  const opening: ChatMessage = { role: 'user', content: history.length ? runnerContinuationTurn(input.attempt) : runnerTaskTurn(input.task, input.attempt) };
  keep(opening);
  let lastText = '';
  const guard = createLoopGuard();
  const { summary, stopped } = await runAgentLoop([...history, opening], {
    maxTurns,
    async requestTurn({ messages }) {
      const turn: AgentTurn = { text: '', calls: [], usage: zeroUsage() };
      for await (const part of model.stream({ system, messages, tools: specs, signal, maxOutputTokens })) {
        if (part.type === 'text-delta') turn.text += part.text;
        else if (part.type === 'tool-call') turn.calls.push(part.call);
        else {
          turn.usage = addUsage(turn.usage, part.usage);
          usage = addUsage(usage, part.usage);
          emit({ type: 'usage', turn: part.usage, total: usage });
        }
      }
      return turn;
    },
    onTurn: (turn) => {
      lastText = turn.text;
      if (turn.calls.length === 0) keep({ role: 'assistant', content: turn.text });
      if (turn.text.trim()) emit({ type: 'progress', message: turn.text.trim() });
    },
    async runCalls(calls) {
      // Kept before they run: a later attempt knows they were asked for even if this one dies mid-call.
      keep({ role: 'assistant', content: lastText, toolCalls: calls });
      const results: ToolResult[] = [];
      let repeated: CadreError | undefined;
      for (const call of calls) {
        const seen: { run?: ToolRun } = {};
        const result = { ...(await runRunnerTool(tools, call, { workspace: input.workspace, emit, signal, onOutcome: (run) => void (seen.run = run) })) };
        const verdict: GuardVerdict = !seen.run ? { kind: 'ok' }
          : guard.record(call, seen.run.outcome === 'refused' ? { refused: true } : { refused: false, output: seen.run.result.output });
        // No one can be asked in the container: the model is told, and past that the task stops.
        if (verdict.kind === 'warn') result.output += `\n\n${verdict.note}`;
        if (verdict.kind === 'stop') repeated ??= repetitionStop(verdict, describeCall(call.name, call.input));
        results.push(result);
      }
      if (!signal.aborted) keep({ role: 'tool', results });
      return { kept: calls, results, stop: signal.aborted ? new Error('aborted') : repeated };
    },
    turnLimit: () => turnLimit,
  });
  if (stopped === turnLimit) return turnLimit;
  if (stopped !== null) return failure(stopped, signal, usage);
  return { type: 'runner.finished', summary: summary || 'vm-agent finished without a summary.', usage };
}
