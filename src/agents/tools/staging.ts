// The checks every staged write passes: no binary file modified, nothing over 100 KB written; and the step's note.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlanAction } from '../../capabilities/plan-draft.js';
import { formatBytes, isBinary, maxFileBytes } from './limits.js';
import { ToolRefusal, type ToolContext } from './tool.js';

/** The current content of a file that is about to be modified; refuses binary files. */
export async function modifiableContent(context: ToolContext, relPath: string): Promise<string | null> {
  const onDisk = await stat(join(context.root, relPath)).catch(() => null);
  if (onDisk?.isDirectory()) throw new ToolRefusal(`${relPath} is a folder, not a file`);
  const current = await context.view.read(relPath);
  if (current === null) return null;
  if (isBinary(current)) throw new ToolRefusal(`${relPath} is a binary file, and binary files cannot be modified`);
  return current.toString('utf8');
}

/** Stages new content after the size limit check, and remembers what the step is for. */
export async function stageContent(
  context: ToolContext,
  relPath: string,
  content: string | null,
  note: { summary?: string; action?: PlanAction },
): Promise<void> {
  if (content !== null) {
    const size = Buffer.byteLength(content, 'utf8');
    if (size > maxFileBytes) throw new ToolRefusal(`the new ${relPath} would be ${formatBytes(size)}; files over 100 KB cannot be written`);
  }
  await context.view.stage(relPath, content);
  if (note.summary) context.plan.summaries.set(relPath, { summary: note.summary, ...(note.action ? { action: note.action } : {}) });
}

export const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length);
