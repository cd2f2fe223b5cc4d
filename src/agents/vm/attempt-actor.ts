// The task actor's `runAttempt` for vm-agent: one runner attempt per invocation; an exhausted budget becomes the task's own event.
import { fromPromise } from 'xstate';
import type { RunAttemptInput, RunAttemptOutput } from '../../../machines/task.machine.js';
import { isCadreError } from '../../errors.js';
import type { VmAttemptResult } from './follow.js';

export interface VmAttemptRunner {
  /** Runs one attempt: runVmAttempt with the container, the runner's env and the output sink already bound. */
  (options: { task: string; attempt: number; signal: AbortSignal }): Promise<VmAttemptResult>;
}

/**
 * Logic for `taskMachine.provide({ actors: { runAttempt } })`. A failed attempt rejects (the task retries it);
 * `budget.exhausted` is sent to the task instead, which ends it as budget-exhausted rather than retrying.
 */
export function createVmAttemptLogic(run: VmAttemptRunner) {
  return fromPromise<RunAttemptOutput & Partial<VmAttemptResult>, RunAttemptInput>(async ({ input, signal, self }) => {
    try {
      return await run({ task: input.text, attempt: input.attempt, signal });
    } catch (error) {
      const parent = self._parent;
      if (!isCadreError(error) || error.code !== 'budget.exhausted' || parent === undefined) throw error;
      parent.send({ type: 'budget.exhausted' });
      // The task leaves `running` on that event and stops this actor; until then nothing else may happen.
      return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(error), { once: true }));
    }
  });
}
