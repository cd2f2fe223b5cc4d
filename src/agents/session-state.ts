// What universal-agent keeps across turns of a session: the conversation, the last plan, /exec output, token usage.
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

/** Plain data, so the session can be saved with /save and resumed. */
export interface AgentSessionState {
  transcript: ChatMessage[];
  lastPlan: LastPlan | null;
  /** /exec runs since the agent's last turn; handed to it on the next one. */
  execOutputs: ExecOutput[];
  /** Provider-reported tokens for the whole session. */
  usage: TokenUsage;
  /** Tokens and cost of each universal-agent run (absent in sessions saved before it existed). */
  usageLog?: TaskUsageRecord[];
}

export const createAgentSessionState = (): AgentSessionState => ({
  transcript: [],
  lastPlan: null,
  execOutputs: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  usageLog: [],
});

/** Keeps an /exec run's tail for the agent's next turn. */
export function recordExecOutput(state: AgentSessionState, command: string, result: Pick<ExecResult, 'exitCode' | 'tail'>): void {
  state.execOutputs.push({ command, exitCode: result.exitCode, tail: result.tail });
}

/** The user said no to the last plan (with an optional reason): the next turn refines it. */
export function markPlanRejected(state: AgentSessionState, reason: string): void {
  if (state.lastPlan) state.lastPlan = { ...state.lastPlan, status: 'rejected', ...(reason ? { reason } : {}) };
}
