// What universal-agent remembers across turns of a session: the conversation with the model, the last plan, /exec output, usage per run.
// The session actor keeps it (context.agentMemory) and persists it with its snapshot; this module reads and changes it.
import type { ExecResult } from '../exec/run.js';
import type { ChatMessage, TokenUsage } from '../model/types.js';
import type { ExecOutput, LastPlan } from './universal/prompt.js';
import type { ModelTurnUsage } from './universal/run.js';

/** One universal-agent run: its model, every model request's tokens, and the cost at the price known then. */
export interface TaskUsageRecord {
  at: number;
  task: string;
  model: string;
  usage: TokenUsage;
  turns: ModelTurnUsage[];
  /** Dollars, or null when the model has no price in the table. */
  cost: number | null;
}

/** Plain data, persisted with the session actor's snapshot. */
export interface AgentMemory {
  /** The conversation with the model, tool calls included (the session's transcript records what the person saw). */
  conversation: ChatMessage[];
  lastPlan: LastPlan | null;
  /** /exec runs since the agent's last turn; handed to it on the next one. */
  execOutputs: ExecOutput[];
  /** Tokens and cost of each universal-agent run; the session's usage holds the total. */
  usageLog: TaskUsageRecord[];
  /** The cadre runs (audit session ids) this session has lived in, a resumed one's included: /undo takes back their plans unasked. */
  runs: string[];
}

/**
 * The session's agent memory. `read` returns a copy to change (fields are replaced, never mutated in place); `write` hands
 * the changed fields to the session actor. Tokens go to the session's one usage figure through `addUsage`.
 */
export interface AgentMemoryStore {
  read(): AgentMemory;
  write(patch: Partial<AgentMemory>): void;
  addUsage(usage: TokenUsage): void;
  /** The session's usage so far. */
  usage(): TokenUsage;
}

const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** The memory a session context holds (or a saved one: sessions saved before it lived there carried it as agentState). */
export function memoryOf(slot: unknown): AgentMemory {
  const value = (typeof slot === 'object' && slot !== null ? slot : {}) as Record<string, unknown>;
  return {
    conversation: list<ChatMessage>(value.conversation ?? value.transcript),
    lastPlan: (value.lastPlan as LastPlan | undefined) ?? null,
    execOutputs: list<ExecOutput>(value.execOutputs),
    usageLog: list<TaskUsageRecord>(value.usageLog),
    runs: list<unknown>(value.runs).filter((run): run is string => typeof run === 'string'),
  };
}

/** Keeps an /exec run's tail for the agent's next turn. */
export function recordExecOutput(memory: AgentMemoryStore, command: string, result: Pick<ExecResult, 'exitCode' | 'tail'>): void {
  memory.write({ execOutputs: [...memory.read().execOutputs, { command, exitCode: result.exitCode, tail: result.tail }] });
}

/** The user said no to the last plan (with an optional reason): the next turn refines it. */
export function markPlanRejected(memory: AgentMemory, reason: string): void {
  if (memory.lastPlan) memory.lastPlan = { ...memory.lastPlan, status: 'rejected', ...(reason ? { reason } : {}) };
}
