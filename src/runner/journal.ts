// The task's conversation kept in the workspace's .git (never committed), so a later attempt continues it instead of starting over.
import { appendFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, ToolCall } from '../model/types.js';

export interface RunnerJournal {
  /** The conversation earlier attempts of this task had, made whole: calls they never saw answered are answered as interrupted. */
  history: ChatMessage[];
  /** Keeps one more message (best effort: a full disk loses the journal, not the attempt). */
  append(message: ChatMessage): void;
}

/** A task id the host passes: short and safe as a file name. */
export const taskIdPattern = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

function isMessage(value: unknown): value is ChatMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as { role?: unknown; content?: unknown; results?: unknown };
  if (message.role === 'user' || message.role === 'assistant') return typeof message.content === 'string';
  return message.role === 'tool' && Array.isArray(message.results);
}

/** Calls of the last assistant turn that have no results: the attempt ended while they ran (or before they started). */
function unanswered(history: ChatMessage[]): ToolCall[] {
  const last = history.at(-1);
  return last?.role === 'assistant' ? (last.toolCalls ?? []) : [];
}

/**
 * Opens the journal of task `taskId` under `<workspace>/.git/cadre-runner/`. A line cut short by a killed runner is dropped;
 * without a .git folder there is no journal (each attempt starts over, as before).
 */
export function openJournal(workspace: string, taskId: string): RunnerJournal | undefined {
  const gitDir = join(workspace, '.git');
  if (!taskIdPattern.test(taskId) || !statSync(gitDir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const folder = join(gitDir, 'cadre-runner');
  const file = join(folder, `${taskId}.jsonl`);
  const history: ChatMessage[] = [];
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // The first attempt: nothing kept yet.
  }
  for (const line of text.split('\n')) {
    try {
      const parsed: unknown = line ? JSON.parse(line) : undefined;
      if (isMessage(parsed)) history.push(parsed);
    } catch {
      // The line the last attempt was writing when it was killed.
    }
  }
  const calls = unanswered(history);
  if (calls.length > 0) {
    history.push({
      role: 'tool',
      results: calls.map((call) => ({
        id: call.id, name: call.name, isError: true,
        output: 'The attempt ended before this call returned: it may or may not have taken effect. Check the workspace before doing it again.',
      })),
    });
  }
  let broken = false;
  // A line cut short must not swallow the next one.
  let separator = text !== '' && !text.endsWith('\n') ? '\n' : '';
  const append = (message: ChatMessage): void => {
    if (broken) return;
    try {
      mkdirSync(folder, { recursive: true });
      appendFileSync(file, `${separator}${JSON.stringify(message)}\n`);
      separator = '';
    } catch {
      broken = true;
    }
  };
  // What was made whole is kept too, so the attempt after this one reads the same conversation.
  if (calls.length > 0) append(history.at(-1)!);
  return { history, append };
}
