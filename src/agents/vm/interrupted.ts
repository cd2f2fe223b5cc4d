// The notice for a vm-agent task a crash of cadre interrupted: its text, what it did, the workspace's changes, its command's fate.
import { terminalSafe } from '../../terminal-text.js';
import type { JournalSteps } from './journal-steps.js';
import type { TaskMarker } from './task-marker.js';

export interface InterruptedTask {
  marker: TaskMarker;
  /** Undefined when the task left no journal (it stopped before its first step, or the workspace has no .git). */
  journal: JournalSteps | undefined;
  /** `git status --short` of the workspace, made safe to print; undefined when the container is not running. */
  changes: string | undefined;
}

const maxChangeLines = 30;
const marks = { done: '✔', failed: '✖', unfinished: '…' } as const;

/** The command that continues the task, for the note in -c / --json runs and after a "no". */
export const continueCommand = (containerId: string): string => `/agent vm-agent --continue --container ${containerId}`;

/** `git status --short` output from the container: hostile, so made safe and bounded. */
export function safeChanges(stdout: string): string {
  const lines = terminalSafe(stdout).split('\n').map((line) => line.trimEnd()).filter(Boolean);
  const kept = lines.slice(0, maxChangeLines).map((line) => (line.length > 200 ? `${line.slice(0, 200)}…` : line));
  return [...kept, ...(lines.length > kept.length ? [`… and ${lines.length - kept.length} more`] : [])].join('\n');
}

/** The person-facing text and the --json data of the notice. */
export function interruptedNotice(task: InterruptedTask): { text: string; data: Record<string, unknown> } {
  const { marker, journal, changes } = task;
  const text = terminalSafe(marker.text).trim();
  const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  const lines = [`Task ${marker.taskId} in ${marker.containerId} was interrupted: cadre stopped while vm-agent worked on it (started ${marker.startedAt}, attempt ${marker.attempt}).`, `  Task: "${shown}"`];
  if (journal && journal.steps.length > 0) {
    lines.push(`  What it did${journal.earlier > 0 ? ` (the last ${journal.steps.length} of ${journal.steps.length + journal.earlier} steps)` : ''}:`);
    for (const step of journal.steps) lines.push(`    ${marks[step.outcome]} ${step.tool} ${step.subject}${step.outcome === 'unfinished' ? ' (did not finish)' : ''}`);
  } else {
    lines.push('  What it did: no step is recorded (it stopped before its first, or its journal is unreadable).');
  }
  const command = journal?.unfinishedCommand;
  lines.push(command
    ? `  Its command \`${command}\` is not running any more: it was stopped when cadre went away (the runner stops it then), or at this re-attach.`
    : '  No command of it is running now.');
  if (changes === undefined) lines.push('  Files changed in the workspace: unknown (the container is not running).');
  else lines.push(changes ? `  Files changed in the workspace:\n${changes.split('\n').map((line) => `    ${line}`).join('\n')}` : '  Files changed in the workspace: none.');
  return {
    text: lines.join('\n'),
    data: {
      taskId: marker.taskId, containerId: marker.containerId, text: marker.text, startedAt: marker.startedAt, attempt: marker.attempt,
      steps: journal?.steps ?? [], earlierSteps: journal?.earlier ?? 0, unfinishedCommand: command ?? null, commandRunning: false,
      changes: changes ?? null, continueWith: continueCommand(marker.containerId),
    },
  };
}
