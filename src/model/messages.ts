// Converts cadre's serialisable conversation and tool specs into the AI SDK's shapes.
import { tool, type ModelMessage, type ToolSet } from 'ai';
import type { ChatMessage, ModelToolSpec } from './types.js';

export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    if (message.role === 'user') return { role: 'user', content: message.content };
    if (message.role === 'tool') {
      return {
        role: 'tool',
        content: message.results.map((result) => ({
          type: 'tool-result' as const,
          toolCallId: result.id,
          toolName: result.name,
          output: result.isError ? { type: 'error-text' as const, value: result.output } : { type: 'text' as const, value: result.output },
        })),
      };
    }
    const calls = message.toolCalls ?? [];
    if (calls.length === 0) return { role: 'assistant', content: message.content };
    return {
      role: 'assistant',
      content: [
        ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
        ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: call.input })),
      ],
    };
  });
}

/** Tools without `execute`: the agent loop runs them itself, through its permission wrapper. */
export function toToolSet(specs: ModelToolSpec[]): ToolSet {
  return Object.fromEntries(specs.map((spec) => [spec.name, tool({ description: spec.description, inputSchema: spec.parameters })]));
}
