// What an interrupted vm-agent task did, read on the host from the runner's journal in its workspace. The workspace is the
// container's: the file is hostile input, so it is read without following links, only its last part, and each line is validated.
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { terminalSafe } from '../../terminal-text.js';
import { taskIdPattern } from '../../runner/journal.js';

/** Only the journal's end is read: the latest steps are the ones that tell where the task stopped. */
const tailBytes = 512 * 1024;
const maxSteps = 25;
const subjectChars = 160;

const callSchema = z.object({ id: z.string().max(256), name: z.string().max(128), input: z.unknown() });
const messageSchema = z.union([
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(callSchema).max(256).optional() }),
  z.object({ role: z.literal('tool'), results: z.array(z.object({ id: z.string().max(256), isError: z.boolean() })).max(256) }),
  z.object({ role: z.literal('user'), content: z.string() }),
]);

export interface JournalStep {
  tool: string;
  /** The command, the path, or the input in short; safe to print. */
  subject: string;
  outcome: 'done' | 'failed' | 'unfinished';
}

export interface JournalSteps {
  steps: JournalStep[];
  /** Steps before the ones kept (an older part of the journal, or past maxSteps). */
  earlier: number;
  /** The command that was running when the task stopped, if its last step was one. */
  unfinishedCommand: string | undefined;
}

function oneLine(text: string): string {
  const line = terminalSafe(text).replace(/\s+/g, ' ').trim();
  return line.length > subjectChars ? `${line.slice(0, subjectChars)}…` : line;
}

function subjectOf(name: string, input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  for (const key of ['command', 'path', 'pattern', 'query']) {
    if (typeof fields[key] === 'string') return oneLine(fields[key]);
  }
  return oneLine(JSON.stringify(input ?? null).slice(0, subjectChars * 2));
}

/** The journal's text, or undefined when it is missing, not a plain file, or reached through a link. */
async function readJournalTail(workspaceDir: string, taskId: string): Promise<string | undefined> {
  if (!taskIdPattern.test(taskId)) return undefined;
  try {
    const base = await realpath(workspaceDir);
    const file = join(base, '.git', 'cadre-runner', `${taskId}.jsonl`);
    // A link anywhere below the workspace (.git pointing elsewhere, say) makes the real path differ: not read.
    if ((await realpath(file)) !== file) return undefined;
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) return undefined;
      const length = Math.min(info.size, tailBytes);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, info.size - length);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      // Read from the middle of the file: the first line is only a part of one.
      return info.size > length ? text.slice(text.indexOf('\n') + 1) : text;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** The steps (tool calls and how each ended) of task `taskId`'s journal in `workspaceDir`, or undefined without a journal. */
export async function journalSteps(workspaceDir: string, taskId: string): Promise<JournalSteps | undefined> {
  const text = await readJournalTail(workspaceDir, taskId);
  if (text === undefined) return undefined;
  const steps: (JournalStep & { id: string })[] = [];
  for (const line of text.split('\n')) {
    let value: unknown;
    try {
      value = line ? JSON.parse(line) : undefined;
    } catch {
      continue;
    }
    const message = messageSchema.safeParse(value);
    if (!message.success) continue;
    const data = message.data;
    if (data.role === 'assistant') {
      for (const call of data.toolCalls ?? []) steps.push({ id: call.id, tool: oneLine(call.name), subject: subjectOf(call.name, call.input), outcome: 'unfinished' });
    } else if (data.role === 'tool') {
      for (const answer of data.results) {
        const step = steps.findLast((candidate) => candidate.id === answer.id && candidate.outcome === 'unfinished');
        if (step) step.outcome = answer.isError ? 'failed' : 'done';
      }
    }
  }
  const last = steps.at(-1);
  const kept = steps.slice(-maxSteps).map(({ tool, subject, outcome }) => ({ tool, subject, outcome }));
  return {
    steps: kept,
    earlier: steps.length - kept.length,
    unfinishedCommand: last?.outcome === 'unfinished' && last.tool === 'run-command' ? last.subject : undefined,
  };
}
