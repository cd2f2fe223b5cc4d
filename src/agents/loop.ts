// The agent loop both agents run (universal-agent on the host, vm-agent's runner in the container): a model turn,
// the calls it makes through the tool kernel, again, until the model answers without a call or the run must stop.
import type { ChatMessage, TokenUsage, ToolCall, ToolResult } from '../model/types.js';

export interface AgentTurn {
  text: string;
  calls: ToolCall[];
  usage: TokenUsage;
}

export interface AgentLoopSteps {
  /** Most model turns; reaching it stops the run with `turnLimit()`. */
  maxTurns: number;
  /** One model turn over the conversation; it may replace `conversation.messages` first (a compaction), which is kept even if the turn fails. */
  requestTurn(conversation: { messages: ChatMessage[] }): Promise<AgentTurn>;
  /** Told of each turn the model finished, before its calls run. */
  onTurn?(turn: AgentTurn): void;
  /** Runs one turn's calls: the calls as the transcript keeps them, their results, and why the run must stop after them, if it must. */
  runCalls(calls: ToolCall[]): Promise<{ kept: ToolCall[]; results: ToolResult[]; stop?: unknown }>;
  turnLimit(): unknown;
}

export interface AgentLoopResult {
  /** The conversation up to the last whole turn. */
  messages: ChatMessage[];
  /** The model's last words (its summary when it finished). */
  summary: string;
  /** Why the run ended early (a thrown model error, a stop from the calls, the turn limit); null when the model finished. */
  stopped: unknown;
}

/** Runs the loop to its end. Never throws: an early end is `stopped`, with the conversation kept so far. */
export async function runAgentLoop(start: ChatMessage[], steps: AgentLoopSteps): Promise<AgentLoopResult> {
  const conversation = { messages: start };
  let summary = '';
  const end = (stopped: unknown): AgentLoopResult => ({ messages: conversation.messages, summary, stopped });
  try {
    for (let turn = 0; ; turn += 1) {
      if (turn >= steps.maxTurns) return end(await steps.turnLimit());
      const reply = await steps.requestTurn(conversation);
      steps.onTurn?.(reply);
      if (reply.text.trim()) summary = reply.text.trim();
      if (reply.calls.length === 0) {
        conversation.messages.push({ role: 'assistant', content: reply.text });
        return end(null);
      }
      const { kept, results, stop } = await steps.runCalls(reply.calls);
      conversation.messages.push({ role: 'assistant', content: reply.text, toolCalls: kept }, { role: 'tool', results });
      if (stop) return end(stop);
    }
  } catch (error) {
    return end(error ?? new Error('the agent loop stopped'));
  }
}
