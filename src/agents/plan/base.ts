// What a plan was drafted from: the hash of each file it touches as it was on disk then, checked again before the apply writes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { CadreError } from '../../errors.js';

/** Path → sha256 of the content the plan was drafted from (null: the file did not exist). */
export type PlanBase = Record<string, string | null>;

const hashOf = (bytes: Buffer | null): string | null => (bytes === null ? null : createHash('sha256').update(bytes).digest('hex'));

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    // Absent, or not a file that can be read (a folder in its place): the apply says which and why when it meets it.
    return null;
  }
}

/** The base of a draft: every file its steps touch, hashed as it is on disk now (just after the draft was made from it). */
export function planBase(draft: PlanDraft, cwd: string): PlanBase {
  return Object.fromEntries(draft.steps.map((step) => [step.path, hashOf(readOrNull(join(cwd, step.path)))]));
}

/** The files of `base` whose content on disk is no longer the one the plan was drafted from. */
export async function changedSinceDraft(base: PlanBase, cwd: string): Promise<string[]> {
  const changed: string[] = [];
  for (const [path, drafted] of Object.entries(base)) {
    const now = await readFile(join(cwd, path)).catch(() => null);
    if (hashOf(now) !== drafted) changed.push(path);
  }
  return changed;
}

/** The apply refused: files changed after the draft, so writing the plan would throw those changes away. */
export function outdatedPlanError(title: string, changed: string[]): CadreError {
  return new CadreError('plan.outdated', `"${title}" was not applied: ${changed.join(', ')} changed after the plan was drafted (another cadre, an editor or a tool wrote ${changed.length === 1 ? 'it' : 'them'}). Nothing was written.`, {
    remedy: 'Draft the plan again on the current content: answer y when asked, or run the task again.',
  });
}
