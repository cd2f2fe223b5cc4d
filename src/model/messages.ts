// Converts cadre's serialisable conversation and tool specs into the provider model's own prompt and tool declarations,
// each message and tool once: a conversation is sent again every turn, so only what is new is converted and checked.
import { asSchema, InvalidPromptError, MissingToolResultsError, modelMessageSchema, type LanguageModel, type ModelMessage } from 'ai';
import type { ChatMessage, ModelToolSpec } from './types.js';

/** The provider-level model (the AI SDK's LanguageModelV3) and what its doStream takes. */
export type ProviderModel = Extract<LanguageModel, { specificationVersion: 'v3' }>;
export type ProviderCall = Parameters<ProviderModel['doStream']>[0];
type ProviderMessage = ProviderCall['prompt'][number];
type ProviderTool = NonNullable<ProviderCall['tools']>[number];
type ProviderAssistantPart = Extract<ProviderMessage, { role: 'assistant' }>['content'][number];
type ProviderToolResult = Extract<Extract<ProviderMessage, { role: 'tool' }>['content'][number], { type: 'tool-result' }>;

function toModelMessage(message: ChatMessage): ModelMessage {
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
}

/** The provider's message, as the AI SDK's streamText builds it from a checked ModelMessage. */
function toProviderMessage(message: ModelMessage): ProviderMessage {
  if (message.role === 'user') return { role: 'user', content: [{ type: 'text', text: message.content as string }] };
  if (message.role === 'tool') {
    return {
      role: 'tool',
      content: message.content.flatMap((part) => (part.type === 'tool-result'
        ? [{ type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, output: part.output as ProviderToolResult['output'] }]
        : [])),
    };
  }
  if (message.role !== 'assistant') throw new InvalidPromptError({ prompt: message, message: `Unexpected ${message.role} message in the conversation.` });
  if (typeof message.content === 'string') return { role: 'assistant', content: [{ type: 'text', text: message.content }] };
  return {
    role: 'assistant',
    content: message.content.flatMap((part): ProviderAssistantPart[] => {
      if (part.type === 'text') return part.text === '' ? [] : [{ type: 'text' as const, text: part.text }];
      if (part.type === 'tool-call') return [{ type: 'tool-call' as const, toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }];
      return [];
    }),
  };
}

/** Each message's provider form, converted and checked once (messages are never changed once in a conversation). */
const converted = new WeakMap<ChatMessage, ProviderMessage>();

function providerMessage(message: ChatMessage): ProviderMessage {
  const known = converted.get(message);
  if (known) return known;
  const modelMessage = toModelMessage(message);
  const checked = modelMessageSchema.safeParse(modelMessage);
  if (!checked.success) throw new InvalidPromptError({ prompt: modelMessage, message: 'The messages do not match the ModelMessage[] schema.', cause: checked.error });
  const result = toProviderMessage(modelMessage);
  converted.set(message, result);
  return result;
}

/** The whole prompt: the system prompt, then the conversation (consecutive tool messages joined, every call answered). */
export function toProviderPrompt(system: string, messages: readonly ChatMessage[]): ProviderCall['prompt'] {
  if (messages.length === 0) throw new InvalidPromptError({ prompt: messages, message: 'messages must not be empty' });
  const prompt: ProviderMessage[] = [{ role: 'system', content: system }];
  const open = new Set<string>();
  for (const message of messages) {
    const next = providerMessage(message);
    const last = prompt.at(-1);
    if (next.role === 'tool' && last?.role === 'tool') prompt[prompt.length - 1] = { role: 'tool', content: [...last.content, ...next.content] };
    else prompt.push(next);
    if (next.role === 'assistant') for (const part of next.content) if (part.type === 'tool-call') open.add(part.toolCallId);
    if (next.role === 'tool') for (const part of next.content) if (part.type === 'tool-result') open.delete(part.toolCallId);
    if (next.role === 'user' && open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...open] });
  }
  if (open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...open] });
  return prompt.filter((message) => message.role !== 'tool' || message.content.length > 0);
}

/** Each tool's declaration with its JSON schema, computed once per spec. */
const declared = new WeakMap<ModelToolSpec, Promise<ProviderTool>>();

export function toProviderTools(specs: readonly ModelToolSpec[]): Promise<ProviderTool[]> {
  return Promise.all(specs.map((spec) => {
    let known = declared.get(spec);
    if (!known) {
      known = Promise.resolve(asSchema(spec.parameters).jsonSchema).then((inputSchema) => ({ type: 'function' as const, name: spec.name, description: spec.description, inputSchema }));
      declared.set(spec, known);
    }
    return known;
  }));
}
