// Progress of /vm-create-pr as output.progress events, one id per step; a failed step is closed so no spinner is left running.
import type { OutputEvent } from '../output.js';

export type ProgressEvent = Extract<OutputEvent, { type: 'output.progress' }>;

export type PullRequestStep = 'check' | 'commit' | 'checkout' | 'push' | 'pull-request';

export interface StepReporter {
  update(step: PullRequestStep, label: string, counts?: { current?: number; total?: number }): void;
  done(step: PullRequestStep, label: string): void;
  /** Closes the step still open, if any, as failed. */
  fail(): void;
}

export function stepReporter(containerId: string, emit: (event: ProgressEvent) => void): StepReporter {
  let open: { step: PullRequestStep; label: string } | undefined;
  const id = (step: PullRequestStep) => `pr:${containerId}:${step}`;
  return {
    update(step, label, counts = {}) {
      open = { step, label };
      emit({ type: 'output.progress', id: id(step), label, ...counts });
    },
    done(step, label) {
      open = undefined;
      emit({ type: 'output.progress', id: id(step), label, done: true });
    },
    fail() {
      if (open) emit({ type: 'output.progress', id: id(open.step), label: `${open.label}: failed`, done: true });
      open = undefined;
    },
  };
}

/** Runs `work` with a step reporter; a failure closes the open step as failed before it goes on up. */
export async function withSteps<T>(containerId: string, onProgress: ((event: ProgressEvent) => void) | undefined, work: (steps: StepReporter) => Promise<T>): Promise<T> {
  const steps = stepReporter(containerId, onProgress ?? (() => undefined));
  try {
    return await work(steps);
  } catch (error) {
    steps.fail();
    throw error;
  }
}
