// Applies an approved plan atomically, records what it replaced under .cadre/undo/, and undoes it on /undo.
import { randomUUID } from 'node:crypto';
import { readdir, readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { CadreError } from '../../errors.js';
import { isBinary, maxFileBytes } from '../tools/limits.js';
import type { Permissions } from '../tools/permissions.js';
import { journalDir, undoDir } from './paths.js';
import { commitChanges, recoverCommit, type CommitIo, type FileChange, type Recovery } from './commit.js';
import { changedSinceDraft, outdatedPlanError, type PlanBase } from './base.js';
import { currentOwner, withApplyLock, type PlanOwner } from './apply-lock.js';
import { ensureCadreFolder } from '../../store/project-folder.js';

export interface AppliedFile {
  path: string;
  previous: string | null;
  next: string | null;
}

export interface AppliedPlan {
  planId: string;
  title: string;
  cwd: string;
  appliedAt: string;
  files: AppliedFile[];
  /** The cadre process and session that applied it (absent in records from before owners were kept). */
  owner?: PlanOwner;
  /** The project-relative folders the apply created, deepest last: /undo removes them when they are empty again. */
  createdDirs?: string[];
}

export interface ApplyOptions {
  planId?: string;
  io?: CommitIo;
  /** When given, every step must pass the write permissions (plans from any source, not only the agent's tools). */
  permissions?: Permissions;
  /** What the plan was drafted from: when a file changed since, nothing is written (plan.outdated). */
  base?: PlanBase;
  /** Who applies it (recorded for /undo, named in the apply lock); this process without a session by default. */
  owner?: PlanOwner;
}

const undoFile = (cwd: string, planId: string) => join(undoDir(cwd), `${planId}.json`);
const safeName = (planId: string): string => planId.replace(/[^A-Za-z0-9._-]/g, '_');

function applyError(message: string, cause?: unknown): CadreError {
  return new CadreError('plan.apply-failed', message, {
    cause,
    remedy: 'Nothing was changed: every file is as it was. Fix the cause (disk space, permissions, a folder in the way) and approve again.',
  });
}

async function previousContent(cwd: string, path: string): Promise<string | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(cwd, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw applyError(`Cannot read ${path}: ${(error as Error).message}`, error);
  }
  if (isBinary(bytes)) throw applyError(`${path} is a binary file; binary files cannot be modified.`);
  return bytes.toString('utf8');
}

function confined(cwd: string, path: string): string {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw applyError(`${path} is outside the project.`);
  return absolute;
}

/** The folders a new file at `path` needs that do not exist yet, outermost first (project-relative). */
async function missingFolders(cwd: string, path: string): Promise<string[]> {
  const missing: string[] = [];
  for (let dir = dirname(path); dir !== '.' && dir !== '/' && dir !== ''; dir = dirname(dir)) {
    if (await stat(join(cwd, dir)).then(() => true, () => false)) break;
    missing.unshift(dir);
  }
  return missing;
}

/**
 * Writes every step or none, under the project's apply lock (one apply or undo at a time across cadre processes); returns
 * what it replaced, also saved for /undo under .cadre/undo/<planId>.json. With `base`, a file changed since the draft stops
 * it before anything is written.
 */
export async function applyPlan(plan: PlanDraft, cwd: string, options: ApplyOptions = {}): Promise<AppliedPlan> {
  const owner = options.owner ?? currentOwner(`pid-${process.pid}`);
  return withApplyLock(cwd, owner, async () => {
    if (options.base) {
      const changed = await changedSinceDraft(options.base, cwd);
      if (changed.length) throw outdatedPlanError(plan.title, changed);
    }
    return applyLocked(plan, cwd, { ...options, owner });
  });
}

async function applyLocked(plan: PlanDraft, cwd: string, options: ApplyOptions & { owner: PlanOwner }): Promise<AppliedPlan> {
  const planId = options.planId ?? `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
  const files: AppliedFile[] = [];
  const changes: FileChange[] = [];
  const createdDirs: string[] = [];
  for (const step of plan.steps) {
    const path = confined(cwd, step.path);
    const decision = options.permissions?.check(step.path, 'write');
    if (decision && !decision.ok) throw applyError(`The plan cannot be applied: ${decision.reason}.`);
    if (files.some((file) => file.path === step.path)) throw applyError(`The plan changes ${step.path} twice.`);
    if (step.content !== null && Buffer.byteLength(step.content) > maxFileBytes) throw applyError(`${step.path} would exceed 100 KB.`);
    const previous = await previousContent(cwd, step.path);
    if (previous === null && step.content === null) continue;
    files.push({ path: step.path, previous, next: step.content });
    changes.push({ path, content: step.content, previous });
    if (previous === null) for (const dir of await missingFolders(cwd, step.path)) if (!createdDirs.includes(dir)) createdDirs.push(dir);
  }
  const applied: AppliedPlan = { planId, title: plan.title, cwd, appliedAt: new Date().toISOString(), files, owner: options.owner, createdDirs };
  await ensureCadreFolder(join(cwd, '.cadre'));
  const record: FileChange = { path: undoFile(cwd, planId), content: `${JSON.stringify(applied, null, 2)}\n`, previous: null };
  try {
    // The undo record goes in the same all-or-nothing commit as the files it describes.
    await commitChanges([record, ...changes], { ...(options.io ? { io: options.io } : {}), journal: join(journalDir(cwd), `${safeName(planId)}.json`), label: `plan "${plan.title}"` });
  } catch (error) {
    throw error instanceof CadreError ? error : applyError(`Applying "${plan.title}" failed: ${(error as Error).message}`, error);
  }
  return applied;
}

/**
 * Restores the files of an applied plan, under the project's apply lock, and removes the folders it created once they are
 * empty again. Files changed since are a conflict unless `force`.
 */
export async function undoPlan(applied: AppliedPlan, options: { force?: boolean; io?: CommitIo; owner?: PlanOwner } = {}): Promise<{ restored: string[] }> {
  return withApplyLock(applied.cwd, options.owner ?? currentOwner(`pid-${process.pid}`), async () => {
    const restored = await undoLocked(applied, options);
    for (const dir of [...(applied.createdDirs ?? [])].reverse()) await rmdir(confined(applied.cwd, dir)).catch(() => undefined);
    return restored;
  });
}

async function undoLocked(applied: AppliedPlan, options: { force?: boolean; io?: CommitIo }): Promise<{ restored: string[] }> {
  const { cwd } = applied;
  const conflicts: string[] = [];
  const changes: FileChange[] = [];
  for (const file of applied.files) {
    const now = await previousContent(cwd, file.path);
    if (now !== file.next) conflicts.push(file.path);
    changes.push({ path: confined(cwd, file.path), content: file.previous, previous: now });
  }
  if (conflicts.length && !options.force) {
    throw new CadreError('plan.undo-conflict', `These files changed after the plan was applied: ${conflicts.join(', ')}.`, {
      remedy: 'Undoing would overwrite those later changes: save them elsewhere first, then run /undo --force to restore the files as they were before the plan.',
    });
  }
  const effective = changes.filter((change) => !(change.content === null && change.previous === null));
  // The undo record goes in the same commit: after a crash the files and the record agree.
  const record = await readFile(undoFile(cwd, applied.planId), 'utf8').catch(() => null);
  if (record !== null) effective.push({ path: undoFile(cwd, applied.planId), content: null, previous: record });
  try {
    await commitChanges(effective, { ...(options.io ? { io: options.io } : {}), journal: join(journalDir(cwd), `undo-${safeName(applied.planId)}.json`), label: `the undo of plan "${applied.title}"` });
  } catch (error) {
    throw new CadreError('plan.undo-failed', `Undoing "${applied.title}" failed: ${(error as Error).message}`, {
      cause: error,
      remedy: 'Nothing was changed. Fix the cause and run /undo again.',
    });
  }
  return { restored: applied.files.map((file) => file.path) };
}

/** The most recently applied plan that has not been undone, from .cadre/undo/ (for /undo after a restart). */
export async function lastAppliedPlan(cwd: string): Promise<AppliedPlan | null> {
  let names: string[];
  try {
    names = (await readdir(undoDir(cwd))).filter((name) => name.endsWith('.json'));
  } catch {
    return null;
  }
  const read = async (name: string) => {
    try {
      return JSON.parse(await readFile(join(undoDir(cwd), name), 'utf8')) as AppliedPlan;
    } catch {
      return null;
    }
  };
  const plans = (await Promise.all(names.map(read))).filter((plan): plan is AppliedPlan => plan !== null && typeof plan.appliedAt === 'string');
  plans.sort((a, b) => a.appliedAt.localeCompare(b.appliedAt));
  const last = plans.at(-1);
  return last ? { ...last, cwd } : null;
}

/**
 * Finishes or rolls back what a crash interrupted in `cwd`: each journal under .cadre/journal/ (see recoverCommit), and the
 * journal's own temporary files. Resolves what was done, for the person to be told. It holds the apply lock: a journal of
 * another cadre's apply in progress is that apply's, not a crash's (the lock of a crashed one is taken over).
 */
export async function recoverInterruptedPlans(cwd: string): Promise<Recovery[]> {
  return withApplyLock(cwd, currentOwner(`pid-${process.pid}`), () => recoverLocked(cwd));
}

async function recoverLocked(cwd: string): Promise<Recovery[]> {
  const dir = journalDir(cwd);
  const names = await readdir(dir).catch(() => [] as string[]);
  const recoveries: Recovery[] = [];
  for (const name of names) {
    if (name.endsWith('.tmp')) await unlink(join(dir, name)).catch(() => undefined);
    else if (name.endsWith('.json')) {
      const recovery = await recoverCommit(join(dir, name));
      if (recovery) recoveries.push(recovery);
    }
  }
  return recoveries;
}
