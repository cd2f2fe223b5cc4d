// Compaction: older turns of the conversation summarised by the model, keeping the task, the last /exec outputs, the files in play and the recent turns.
import { CadreError } from '../../errors.js';
import type { ChatMessage, ModelClient, TokenUsage } from '../../model/types.js';
import { addUsage, zeroUsage } from '../../model/types.js';
import { execOutputsHeading } from './prompt.js';
import { compactTranscript } from './transcript.js';

export interface CompactionInput {
  model: ModelClient;
  messages: ChatMessage[];
  /** Tokens of a list of messages. */
  countMessages: (messages: readonly ChatMessage[]) => number;
  /** The model's context window, in tokens. */
  window: number;
  /** Share of the window the recent turns may keep verbatim (0: summarise everything, as /compact does). */
  keepRecentShare: number;
  signal?: AbortSignal;
  stallTimeoutMs?: number;
}

export interface CompactionResult {
  messages: ChatMessage[];
  /** How many messages the summary replaced. */
  compacted: number;
  before: number;
  after: number;
  /** What the summarising request cost. */
  usage: TokenUsage;
  /** The model's summary, as the conversation now carries it (shown by /compact). */
  summary: string;
}

export const summaryHeading = '[Summary of the earlier conversation, compacted by cadre to fit the context window]';

const summarySystem = `You compact the conversation of a coding assistant (universal-agent) with a user, so the work can go on in a smaller context.
Write a faithful, concise summary (at most 400 words, plain text) of: what the user asked, what was learned about the project, decisions made,
what was staged or changed (with file paths), what the user rejected or asked to change, and what remains to do. Do not invent anything.`;

/** Where the recent part starts: never at tool results, whose calls would be cut off from them. */
function splitIndex(messages: ChatMessage[], countMessages: CompactionInput['countMessages'], keepTokens: number): number {
  let split = messages.length;
  let tokens = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as ChatMessage;
    tokens += countMessages([message]);
    if (tokens > keepTokens) break;
    if (message.role !== 'tool') split = index;
  }
  return split;
}

function filesInPlay(messages: ChatMessage[]): string[] {
  const paths = new Set<string>();
  for (const message of [...messages].reverse()) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const path = (call.input as { path?: unknown } | null)?.path;
      if (typeof path === 'string' && path.length < 300) paths.add(path);
    }
  }
  return [...paths].slice(0, 30);
}

/** The older turns as text for the summariser, each tool output shortened, oldest dropped first past `maxChars`. */
function renderForSummary(messages: ChatMessage[], maxChars: number): string {
  const lines = messages.map((message) => {
    if (message.role === 'user') return `USER: ${message.content}`;
    if (message.role === 'tool') return message.results.map((result) => `TOOL RESULT (${result.name}${result.isError ? ', refused' : ''}): ${result.output.slice(0, 1500)}`).join('\n');
    const calls = (message.toolCalls ?? []).map((call) => `TOOL CALL ${call.name} ${JSON.stringify(call.input).slice(0, 300)}`);
    return [message.content ? `ASSISTANT: ${message.content}` : '', ...calls].filter(Boolean).join('\n');
  });
  const text = lines.join('\n\n');
  return text.length <= maxChars ? text : `[… the oldest part is left out]\n${text.slice(text.length - maxChars)}`;
}

/** The current task and the last /exec outputs, when compaction would take them out of the conversation. */
function keptVerbatim(older: ChatMessage[], recent: ChatMessage[]): string[] {
  const kept: string[] = [];
  if (!recent.some((message) => message.role === 'user')) {
    const task = [...older].reverse().find((message) => message.role === 'user');
    if (task?.role === 'user') {
      const at = task.content.indexOf(execOutputsHeading);
      kept.push(`The current task, as the user gave it:\n${(at >= 0 ? task.content.slice(0, at) : task.content).trim().slice(0, 8000)}`);
    }
  }
  const withExec = [...older].reverse().find((message) => message.role === 'user' && message.content.includes(execOutputsHeading));
  if (withExec?.role === 'user') kept.push(withExec.content.slice(withExec.content.indexOf(execOutputsHeading)).slice(0, 6000));
  return kept;
}

async function summarise(input: CompactionInput, older: ChatMessage[]): Promise<{ text: string; usage: TokenUsage }> {
  let text = '';
  let usage = zeroUsage();
  for await (const part of input.model.stream({
    system: summarySystem,
    messages: [{ role: 'user', content: renderForSummary(older, Math.floor(input.window * 0.7 * 3.5)) }],
    tools: [],
    maxOutputTokens: 1500,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.stallTimeoutMs ? { stallTimeoutMs: input.stallTimeoutMs } : {}),
  })) {
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'finish') usage = addUsage(usage, part.usage);
  }
  if (!text.trim()) throw new CadreError('model.compaction-failed', 'The model returned an empty summary, so the conversation could not be compacted.', { remedy: 'Try /compact again, or save the session (/save) and start a new one.' });
  return { text: text.trim(), usage };
}

/** Compacts the conversation; null when there is nothing older than the recent turns to summarise. */
export async function compactConversation(input: CompactionInput): Promise<CompactionResult | null> {
  const { messages, countMessages } = input;
  const before = countMessages(messages);
  const split = splitIndex(messages, countMessages, Math.floor(input.window * input.keepRecentShare));
  if (split === 0) return null;
  const older = messages.slice(0, split);
  let recent = messages.slice(split);
  const summary = await summarise(input, older);
  const files = filesInPlay(older);
  const content = [summaryHeading, summary.text, files.length ? `Files in play: ${files.join(', ')}` : '', ...keptVerbatim(older, recent)].filter(Boolean).join('\n\n');
  const head: ChatMessage[] = [{ role: 'user', content }];
  if (recent.length === 0 || recent[0]?.role === 'user') head.push({ role: 'assistant', content: 'Understood: I continue from this summary.' });
  // Recent turns that are still too big keep only the start of their tool outputs.
  if (countMessages(recent) > input.window * Math.max(input.keepRecentShare, 0.3)) recent = compactTranscript(recent, 2000);
  const compacted = [...head, ...recent];
  return { messages: compacted, compacted: older.length, before, after: countMessages(compacted), usage: summary.usage, summary: summary.text };
}
