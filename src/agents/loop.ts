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
  /** One model turn over the conversation; it may compact the conversation first, and returns the one it sent. */
  requestTurn(messages: ChatMessage[]): Promise<{ turn: AgentTurn; messages: ChatMessage[] }>;
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
  let messages = start;
  let summary = '';
  try {
    for (let turn = 0; ; turn += 1) {
      if (turn >= steps.maxTurns) return { messages, summary, stopped: await steps.turnLimit() };
      const requested = await steps.requestTurn(messages);
      messages = requested.messages;
      const { text, calls } = requested.turn;
      steps.onTurn?.(requested.turn);
      if (text.trim()) summary = text.trim();
      if (calls.length === 0) {
        messages.push({ role: 'assistant', content: text });
        return { messages, summary, stopped: null };
      }
      const { kept, results, stop } = await steps.runCalls(calls);
      messages.push({ role: 'assistant', content: text, toolCalls: kept }, { role: 'tool', results });
      if (stop) return { messages, summary, stopped: stop };
    }
  } catch (error) {
    return { messages, summary, stopped: error ?? new Error('the agent loop stopped') };
  }
}
