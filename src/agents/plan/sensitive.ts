// Decides when /auto must still ask: security-sensitive or critical tasks, complex changes, and plans that overwrite or delete
// what the person wrote.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { currentContent } from './files.js';
import { undoDir } from './paths.js';
import { countLines } from './render.js';

const sensitiveTask = /\b(auth\w*|login|logout|password|passwd|secret|credential|token|api[ -]?key|encrypt\w*|decrypt\w*|crypto\w*|hash(ing)?|permission|access control|rbac|oauth|jwt|session|csrf|xss|sql injection|sanitiz\w*|security|vulnerab\w*|firewall|sudo|chmod|production|prod deploy|migration|drop table)\b/i;
const sensitivePath = /(^|\/)(\.github\/workflows\/|\.gitlab-ci|Dockerfile|docker-compose|\.npmrc|\.yarnrc|package\.json$|package-lock\.json$|yarn\.lock$|pnpm-lock|nginx|k8s\/|helm\/|terraform|\.tf$|migrations?\/|auth|security|crypto|middleware\/auth|permissions?)/i;

/** Files in `cwd` that a plan of cadre created and that are still as that plan left them to be undone (from the undo records). */
function createdByCadre(cwd: string): Set<string> {
  const created = new Set<string>();
  let names: string[] = [];
  try {
    names = readdirSync(undoDir(cwd)).filter((name) => name.endsWith('.json'));
  } catch {
    return created;
  }
  for (const name of names) {
    try {
      const record = JSON.parse(readFileSync(join(undoDir(cwd), name), 'utf8')) as { files?: { path?: unknown; previous?: unknown }[] };
      for (const file of record.files ?? []) if (typeof file.path === 'string' && file.previous === null) created.add(file.path);
    } catch {
      // An unreadable record vouches for nothing: its files count as the person's.
    }
  }
  return created;
}

/** The first step that replaces most of an existing file the person wrote (more than half of its lines, at least 4). */
function overwrite(plan: PlanDraft, cwd: string): string | null {
  let created: Set<string> | undefined;
  for (const step of plan.steps) {
    if (step.content === null) continue;
    const before = currentContent(cwd, step.path);
    if (before === null) continue;
    const lines = before.split('\n').filter((line) => line.trim() !== '').length;
    const { removed } = countLines(before, step.content);
    if (lines < 4 || removed * 2 <= lines) continue;
    created ??= createdByCadre(cwd);
    if (created.has(step.path)) continue;
    return `it replaces most of ${step.path} (${removed} of its ${lines} lines), a file you wrote`;
  }
  return null;
}

/** The first step that takes away lines of a file the person wrote (PlanStep.overwrites, set when the plan is drafted). */
function removesText(plan: PlanDraft, cwd: string): string | null {
  const step = plan.steps.find((candidate) => candidate.content !== null && (candidate.overwrites?.removedLines ?? 0) > 0);
  if (!step) return null;
  if (createdByCadre(cwd).has(step.path)) return null;
  const count = step.overwrites?.removedLines ?? 0;
  return `it changes or removes ${count} existing line${count === 1 ? '' : 's'} of ${step.path}, a file you wrote`;
}

/** A reason to ask for approval even in auto mode, or null when the plan is routine. */
export function isSecuritySensitive(task: string, plan: PlanDraft, cwd: string): string | null {
  const word = sensitiveTask.exec(task)?.[0];
  if (word) return `the task mentions "${word}", which looks security-sensitive`;
  const path = plan.steps.find((step) => sensitivePath.test(step.path))?.path;
  if (path) return `it changes ${path}, a security- or build-critical file`;
  const deletions = plan.steps.filter((step) => step.content === null).length;
  if (deletions > 0) return `it deletes ${deletions} file${deletions === 1 ? '' : 's'}`;
  const replaced = overwrite(plan, cwd);
  if (replaced) return replaced;
  const removing = removesText(plan, cwd);
  if (removing) return removing;
  if (plan.steps.length > 8) return `it changes ${plan.steps.length} files, a complex change`;
  const secret = plan.steps.find((step) => step.content && /(-----BEGIN [A-Z ]*PRIVATE KEY-----|(api[_-]?key|secret|password)\s*[:=]\s*['"][^'"]{8,})/i.test(step.content));
  if (secret) return `${secret.path} would contain what looks like a secret`;
  return null;
}
