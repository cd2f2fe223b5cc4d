// Follows one runner process: parses its JSON-lines stdout, shows progress, and turns how it ended into a result or an error.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { OutputSink } from '../../output.js';
import { terminalSafe } from '../../terminal-text.js';
import { CadreError } from '../../errors.js';
import type { TokenUsage } from '../../model/types.js';
import { parseRunnerEvent, type RunnerEvent } from '../../runner/events.js';
import { runnerEventOutput } from './translate.js';
import type { RunnerExit } from '../../container/runner-exec.js';

/** How the runner process ended, as seen from outside it. */
export type { RunnerExit };


export interface VmAttemptResult {
  summary: string;
  usage: TokenUsage;
}

type Terminal = Extract<RunnerEvent, { type: 'runner.finished' | 'runner.failed' | 'runner.budget-exhausted' }>;

const stderrTailChars = 2_000;

function lastLines(text: string, count = 3): string {
  return terminalSafe(text).trim().split('\n').slice(-count).join(' | ');
}

/** A line the runner (inside the container) wrote, made safe to show: no control sequences, bounded length. */
function fromRunner(text: string, max = 2_000): string {
  const safe = terminalSafe(text).trim();
  return safe.length > max ? `${safe.slice(0, max)}…` : safe;
}

function killedBy(exitCode: number | null): string | undefined {
  if (exitCode === 137) return 'SIGKILL';
  if (exitCode === 143) return 'SIGTERM';
  return undefined;
}

/** The error for a runner that ended without saying how: killed, crashed, or its container lost. */
function silentEnd(exit: RunnerExit, stderr: string): CadreError {
  const said = stderr.trim() ? `; its last words: ${lastLines(stderr)}` : '';
  if (exit.containerLost) {
    return new CadreError('vm-agent.container-lost', `The container stopped while vm-agent was working (${exit.containerLost}).`, {
      remedy: 'Check why with /vm-status <id>; /vm-restart <id> starts it again (its workspace is kept), then /agent vm-agent continues the work.',
    });
  }
  const signal = killedBy(exit.exitCode);
  if (signal) {
    return new CadreError('vm-agent.runner-killed', `The vm-agent runner was killed (${signal}, exit ${exit.exitCode}) before it finished${said}.`, {
      remedy: 'The task is retried; /vm-status <id> says whether the container ran out of memory.',
    });
  }
  const code = exit.exitCode === null ? 'an unknown code' : `code ${exit.exitCode}`;
  return new CadreError('vm-agent.runner-crashed', `The vm-agent runner exited with ${code} without finishing${said}.`, {
    remedy: 'The task is retried; if it keeps failing, this is a bug in cadre.',
  });
}

function outcome(terminal: Terminal): VmAttemptResult {
  if (terminal.type === 'runner.finished') return { summary: fromRunner(terminal.summary, 4_000), usage: terminal.usage };
  if (terminal.type === 'runner.budget-exhausted') {
    throw new CadreError('budget.exhausted', `The session's token budget is exhausted: ${fromRunner(terminal.message)}.`, {
      remedy: 'The work so far is in the container; open a pull request with /vm-create-pr, or start a new session for more tokens.',
    });
  }
  // The runner's own words, marked as such: a container must not be able to print what looks like cadre's error.
  const code = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+){0,3}$/.test(terminal.code) && terminal.code.length <= 64 ? terminal.code : 'vm-agent.failed';
  throw new CadreError(code, `vm-agent reported: ${fromRunner(terminal.message)}`, { remedy: fromRunner(terminal.remedy) });
}

/**
 * Reads the runner's events until its stdout ends, then asks `exited` how it ended.
 * Resolves with the summary; throws CadreError `budget.exhausted`, the runner's own failure code,
 * or `vm-agent.runner-killed` / `vm-agent.runner-crashed` / `vm-agent.container-lost`.
 */
export async function followRunner(options: {
  stdout: Readable;
  stderr: Readable;
  exited: () => Promise<RunnerExit>;
  onEvent: OutputSink;
  /** Every runner event as parsed, e.g. for the audit trail. */
  onRunnerEvent?: (event: RunnerEvent) => void;
}): Promise<VmAttemptResult> {
  let stderr = '';
  options.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-stderrTailChars);
  });
  let terminal: Terminal | undefined;
  for await (const line of createInterface({ input: options.stdout, crlfDelay: Infinity })) {
    const event = parseRunnerEvent(line);
    if (!event) continue;
    options.onRunnerEvent?.(event);
    for (const output of runnerEventOutput(event)) options.onEvent(output);
    if (event.type === 'runner.finished' || event.type === 'runner.failed' || event.type === 'runner.budget-exhausted') terminal = event;
  }
  if (terminal) return outcome(terminal);
  throw silentEnd(await options.exited(), stderr);
}
