// Why a universal-agent run stopped before it finished: each a CadreError saying what was kept and what to do.
import { CadreError } from '../../errors.js';
import type { StagedChange } from '../tools/staged-view.js';

const continueRemedy = 'The conversation and the staged changes are kept: type a follow-up (e.g. "continue", or what to do differently) and the staged changes come back as the plan.';

/** "create src/a.ts, modify src/b.ts" or "nothing". */
export function describeStaged(changes: readonly StagedChange[]): string {
  if (changes.length === 0) return 'nothing';
  return changes.map((change) => `${change.after === null ? 'delete' : change.before === null ? 'create' : 'modify'} ${change.path}`).join(', ');
}

export function turnLimitReached(maxTurns: number, staged: readonly StagedChange[]): CadreError<'agent.turn-limit'> {
  return new CadreError('agent.turn-limit', `universal-agent used all ${maxTurns} model turns without finishing. Staged so far: ${describeStaged(staged)}.`, {
    remedy: `${continueRemedy} A narrower task needs fewer turns.`,
  });
}

export function repeatedRefusal(call: string, reason: string, times: number, staged: readonly StagedChange[]): CadreError<'agent.repeated-refusal'> {
  return new CadreError('agent.repeated-refusal', `universal-agent made the same refused call ${times} times (${call}: ${reason}), so it was stopped. Staged so far: ${describeStaged(staged)}.`, {
    remedy: `${continueRemedy} If the call should be allowed, change the permissions in the config.`,
  });
}

export function repeatedCalls(call: string, what: string, staged: readonly StagedChange[]): CadreError<'agent.repeated-call'> {
  return new CadreError('agent.repeated-call', `universal-agent made ${what} (${call}), so it was stopped before it spent more tokens on it. Staged so far: ${describeStaged(staged)}.`, {
    remedy: `${continueRemedy} Say what it should do differently, or narrow the task.`,
  });
}

/** `what` is how the model repeated itself (describeRepetition). */
export function stoppedByPerson(call: string, what: string, staged: readonly StagedChange[]): CadreError<'agent.stopped'> {
  return new CadreError('agent.stopped', `You stopped universal-agent: it made ${what} (${call}). Staged so far: ${describeStaged(staged)}.`, { remedy: continueRemedy });
}

export function conversationTooLong(needed: number, window: number): CadreError<'model.context-too-long'> {
  return new CadreError('model.context-too-long', `The conversation needs about ${needed.toLocaleString('en-US')} tokens, more than the model's ${window.toLocaleString('en-US')}-token context window even after compaction.`, {
    remedy: 'Save the session (/save) and start a new one with a narrower task, or use a model with a larger window (/model); big files can be read by line range.',
  });
}
