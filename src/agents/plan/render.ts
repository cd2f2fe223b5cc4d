// The plan as people see it: a step list with +/− line counts, and the coloured unified diff of every step.
import { createTwoFilesPatch, diffLines } from 'diff';
import type { PlanDraft, PlanStep } from '../../capabilities/plan-draft.js';
import { currentContent } from './files.js';

const ansi = { red: '\x1b[31m', green: '\x1b[32m', cyan: '\x1b[36m', bold: '\x1b[1m', dim: '\x1b[2m', reset: '\x1b[0m' };

export interface StepCounts {
  added: number;
  removed: number;
}

export function countLines(before: string | null, after: string | null): StepCounts {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before ?? '', after ?? '')) {
    if (part.added) added += part.count;
    if (part.removed) removed += part.count;
  }
  return { added, removed };
}

export function stepCounts(step: PlanStep, cwd: string): StepCounts {
  return countLines(currentContent(cwd, step.path), step.content);
}

function colourLine(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return `${ansi.bold}${line}${ansi.reset}`;
  if (line.startsWith('+')) return `${ansi.green}${line}${ansi.reset}`;
  if (line.startsWith('-')) return `${ansi.red}${line}${ansi.reset}`;
  if (line.startsWith('@@')) return `${ansi.cyan}${line}${ansi.reset}`;
  return line;
}

/** The unified diff of every step against the disk; coloured with ANSI codes when asked. */
export function renderPlanDiff(plan: PlanDraft, cwd: string, options: { color: boolean }): string {
  const parts = plan.steps.map((step, index) => {
    const before = currentContent(cwd, step.path);
    const patch = createTwoFilesPatch(
      before === null ? '/dev/null' : `a/${step.path}`,
      step.content === null ? '/dev/null' : `b/${step.path}`,
      before ?? '',
      step.content ?? '',
      undefined,
      undefined,
      { context: 3 },
    );
    const body = patch.split('\n').filter((line) => !line.startsWith('====') && !line.startsWith('Index:')).join('\n').trimEnd();
    const header = `Step ${index + 1}: ${step.action} ${step.path} — ${step.summary}`;
    if (!options.color) return `${header}\n${body}`;
    return `${ansi.bold}${header}${ansi.reset}\n${body.split('\n').map(colourLine).join('\n')}`;
  });
  return parts.join('\n\n');
}
