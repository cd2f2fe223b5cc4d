// After applying: checks that every step's change is on disk and that every changed file still parses, then runs the project's own type check when it has one, and says honestly what failed.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { parseSource } from '../../project/ast.js';
import { currentContent } from './files.js';
import { countLines } from './render.js';

/** Differences between the plan and the disk, and changed files that no longer parse (each one sentence). */
export function verifyPlan(plan: PlanDraft, cwd: string): string[] {
  const differences: string[] = [];
  for (const step of plan.steps) {
    const actual = currentContent(cwd, step.path);
    if (step.content === null) {
      if (actual !== null) differences.push(`${step.path} should have been deleted but still exists`);
    } else if (actual === null) {
      differences.push(`${step.path} should exist but is missing`);
    } else if (actual !== step.content) {
      const { added, removed } = countLines(step.content, actual);
      differences.push(`${step.path} differs from the plan (+${added} −${removed} lines against the planned content)`);
    } else {
      const problem = parseProblem(step.path, actual);
      if (problem) differences.push(`${step.path} does not parse after the change: ${problem}`);
    }
  }
  return differences;
}

/** Why a script, component or JSON file does not parse (first error, with its line), or null. */
export function parseProblem(path: string, text: string): string | null {
  if (/\.json$/.test(path) && !/tsconfig[^/]*\.json$|\.vscode\//.test(path)) {
    try {
      JSON.parse(text);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }
  if (!/\.(?:[cm]?[jt]sx?|vue|svelte)$/.test(path) || /\.d\.ts$/.test(path)) return null;
  try {
    const parsed = parseSource(path, text);
    const first = parsed?.errors[0];
    return first ?? null;
  } catch (error) {
    return (error as Error).message;
  }
}

export type TypeCheck =
  | { ran: false; reason: string }
  | { ran: true; command: string; folder: string; ok: boolean; timedOut: boolean; inPlan: string[]; elsewhere: number; output: string };

export type AppliedCheck = { differences: string[]; typeChecks: TypeCheck[] };

/**
 * The full check after apply: `verifyPlan`, then the type check of each package the plan touched (tsc, vue-tsc, `tsc -b` for a
 * solution-style tsconfig), run from the project's own node_modules with a time limit. Errors in the plan's files are listed;
 * errors elsewhere are counted (they may predate the plan).
 */
export async function checkAppliedPlan(plan: PlanDraft, cwd: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<AppliedCheck> {
  const differences = verifyPlan(plan, cwd);
  const scripts = plan.steps.filter((step) => step.content !== null && /\.(?:[cm]?tsx?|vue)$/.test(step.path)).map((step) => step.path);
  if (scripts.length === 0) return { differences, typeChecks: [] };
  const folders = [...new Set(scripts.map((path) => packageFolder(cwd, path)))];
  const typeChecks: TypeCheck[] = [];
  for (const folder of folders) typeChecks.push(await typeCheck(cwd, folder, scripts, options));
  return { differences, typeChecks };
}

/** The nearest folder above a file (inside the project) that has a tsconfig.json. */
function packageFolder(cwd: string, path: string): string {
  for (let folder = dirname(join(cwd, path)); folder.startsWith(cwd); folder = dirname(folder)) {
    if (existsSync(join(folder, 'tsconfig.json'))) return folder;
    if (folder === cwd) break;
  }
  return cwd;
}

/** The type checker installed for a folder (its own node_modules or an ancestor's), as a script node can run. */
function checker(cwd: string, folder: string, vue: boolean): { script: string; name: string } | null {
  for (let at = folder; at.startsWith(cwd); at = dirname(at)) {
    const candidates = vue ? [join(at, 'node_modules', 'vue-tsc', 'bin', 'vue-tsc.js'), join(at, 'node_modules', 'typescript', 'bin', 'tsc')] : [join(at, 'node_modules', 'typescript', 'bin', 'tsc')];
    const found = candidates.find((candidate) => existsSync(candidate));
    if (found) return { script: found, name: found.includes('vue-tsc') ? 'vue-tsc' : 'tsc' };
    if (at === cwd) break;
  }
  return null;
}

async function typeCheck(cwd: string, folder: string, scripts: string[], options: { signal?: AbortSignal; timeoutMs?: number }): Promise<TypeCheck> {
  const where = relative(cwd, folder) || '.';
  if (!existsSync(join(folder, 'tsconfig.json'))) return { ran: false, reason: `${where} has no tsconfig.json, so there is no type check to run` };
  const tool = checker(cwd, folder, scripts.some((path) => path.endsWith('.vue')));
  if (!tool) return { ran: false, reason: `TypeScript is not installed in ${where} (install the project's dependencies to have the plan type-checked)` };
  const config = currentContent(folder, 'tsconfig.json') ?? '';
  const args = /"files"\s*:\s*\[\s*\]/.test(config) && /"references"/.test(config) ? ['-b'] : ['--noEmit', '-p', 'tsconfig.json'];
  const command = `${tool.name} ${args.join(' ')}`;
  const result = await new Promise<{ code: number; output: string; timedOut: boolean }>((resolve) => {
    execFile(process.execPath, [tool.script, ...args], { cwd: folder, timeout: options.timeoutMs ?? 180_000, maxBuffer: 16 * 1024 * 1024, signal: options.signal, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const timedOut = Boolean(error && (error as { killed?: boolean }).killed);
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}`, timedOut });
    });
  });
  const errors = result.output.split('\n').filter((line) => /error TS\d+/.test(line));
  const planFiles = new Set(scripts.map((path) => relative(folder, join(cwd, path))));
  const inPlan = errors.filter((line) => planFiles.has(line.replace(/\(\d+,\d+\).*$/, '').trim()));
  return { ran: true, command: `${command} (in ${where})`, folder: where, ok: result.code === 0, timedOut: result.timedOut, inPlan, elsewhere: errors.length - inPlan.length, output: result.output.slice(-4000) };
}

/** One line per check, as the person reads it after apply. */
export function describeTypeCheck(check: TypeCheck): string {
  if (!check.ran) return `Type check not run: ${check.reason}.`;
  if (check.timedOut) return `Type check (${check.command}) did not finish in time; the plan is applied but unchecked.`;
  if (check.ok) return `Type check passed: ${check.command}.`;
  const listed = check.inPlan.slice(0, 5).map((line) => `\n  ${line.trim()}`).join('');
  return `Type check FAILED: ${check.command}: ${check.inPlan.length} error(s) in files this plan changed${check.elsewhere > 0 ? `, ${check.elsewhere} elsewhere (they may predate the plan)` : ''}.${listed}`;
}
