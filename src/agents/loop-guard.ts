// Keeps a model from going round in circles, in both agents: the same refused call again and again, and the same successful
// calls with the same results again and again (one call, or a few cycling: A,B,A,B,A,B) are named to it plainly, then stop the run.
import { createHash } from 'node:crypto';
import type { ToolCall } from '../model/types.js';

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** A digest of the call, so even a huge argument is remembered in 64 characters. */
export function callKey(call: Pick<ToolCall, 'name' | 'input'>): string {
  let text: string;
  try {
    text = canonical(call.input);
  } catch {
    text = String(call.input);
  }
  return createHash('sha256').update(call.name).update('\0').update(text).digest('hex');
}

export type GuardVerdict =
  | { kind: 'ok' }
  /** The note is added to the tool result the model reads. */
  | { kind: 'warn'; note: string }
  /** The run stops (or the person decides): a refused call made `times` times, or the same calls and results repeated `times` times. */
  | { kind: 'stop'; reason: 'refused' | 'repeated'; times: number; calls: number };

/** What became of one call: refused (policy, permissions, arguments), or run, with the output the model reads. */
export type CallOutcome = { refused: true } | { refused: false; output: string };

export interface LoopGuard {
  /** Records one finished call. */
  record(call: Pick<ToolCall, 'name' | 'input'>, outcome: CallOutcome): GuardVerdict;
  /** The person let the model go on: this call (and the cycle it was in) starts counting again. */
  forgive(call: Pick<ToolCall, 'name' | 'input'>): void;
}

export interface LoopGuardLimits {
  /** Refusals of one call before the model is told (default 2), and before the run stops (default 3). */
  warnAt?: number;
  stopAt?: number;
  /** Repeats of the same calls with the same results before the model is told (default 3), and before the run stops (default 5). */
  repeatWarnAt?: number;
  repeatStopAt?: number;
}

/** Cycles up to this many calls long are recognised (A; A,B; A,B,C; A,B,C,D). */
const longestCycle = 4;

/** How many times the last `period` entries repeat back to back at the end of `history`. */
function repeatsAtEnd(history: readonly string[], period: number): number {
  let times = 1;
  for (let start = history.length - 2 * period; start >= 0; start -= period) {
    for (let i = 0; i < period; i += 1) if (history[start + i] !== history[history.length - period + i]) return times;
    times += 1;
  }
  return times;
}

/** True when `block` is a shorter block repeated (A,A or A,B,A,B), not a cycle of its own (A,A,B). */
function isRepetition(block: readonly string[]): boolean {
  for (let length = 1; length < block.length; length += 1) {
    if (block.length % length === 0 && block.every((entry, index) => entry === block[index % length])) return true;
  }
  return false;
}

/** The repetition the history ends with: the shortest cycle repeated most, when one is repeated at least twice. */
function repetitionAtEnd(history: readonly string[]): { period: number; times: number } | undefined {
  let found: { period: number; times: number } | undefined;
  for (let period = 1; period <= longestCycle && period * 2 <= history.length; period += 1) {
    // A cycle of one call repeated (A,A,A,A) is also one of two (AA,AA): the shorter is the one to name.
    if (isRepetition(history.slice(-period))) continue;
    const times = repeatsAtEnd(history, period);
    if (times >= 2 && (!found || times > found.times)) found = { period, times };
  }
  return found;
}

export function createLoopGuard(limits: LoopGuardLimits = {}): LoopGuard {
  const warnAt = limits.warnAt ?? 2;
  const stopAt = limits.stopAt ?? 3;
  const repeatWarnAt = limits.repeatWarnAt ?? 3;
  const repeatStopAt = limits.repeatStopAt ?? 5;
  const refusals = new Map<string, number>();
  // Each successful call as its key and its result's digest, most recent last (bounded).
  let history: string[] = [];

  const refused = (call: Pick<ToolCall, 'name' | 'input'>): GuardVerdict => {
    const key = callKey(call);
    const times = (refusals.get(key) ?? 0) + 1;
    refusals.set(key, times);
    if (times >= stopAt) return { kind: 'stop', reason: 'refused', times, calls: 1 };
    if (times >= warnAt) {
      return {
        kind: 'warn',
        note: `You have now made this exact ${call.name} call ${times} times and it was refused each time. Do not make it again: it will be refused again, and a third time stops your work. `
          + 'Change the arguments, use another tool, or end your turn and tell the user what blocks you.',
      };
    }
    return { kind: 'ok' };
  };

  return {
    record(call, outcome) {
      if (outcome.refused) return refused(call);
      const digest = createHash('sha256').update(outcome.output).digest('hex');
      history.push(`${callKey(call)}:${digest}`);
      if (history.length > longestCycle * repeatStopAt * 2) history = history.slice(-longestCycle * repeatStopAt);
      const repetition = repetitionAtEnd(history);
      if (!repetition || repetition.times < repeatWarnAt) return { kind: 'ok' };
      if (repetition.times >= repeatStopAt) return { kind: 'stop', reason: 'repeated', times: repetition.times, calls: repetition.period };
      const what = repetition.period === 1
        ? `this exact ${call.name} call ${repetition.times} times in a row`
        : `the same ${repetition.period} calls in the same order ${repetition.times} times in a row`;
      return {
        kind: 'warn',
        note: `You have now made ${what}, and the results did not change: calling again will not tell you anything new. Use the results you have, `
          + `change your approach, or end your turn and tell the user what blocks you. At ${repeatStopAt} repeats your work is stopped.`,
      };
    },
    forgive(call) {
      refusals.delete(callKey(call));
      history = [];
    },
  };
}

/** How a stop reads to a person: "the same refused call 3 times" or "the same call 5 times with the same result". */
export function describeRepetition(verdict: Extract<GuardVerdict, { kind: 'stop' }>): string {
  if (verdict.reason === 'refused') return `the same refused call ${verdict.times} times`;
  return verdict.calls === 1
    ? `the same call ${verdict.times} times in a row with the same result`
    : `the same ${verdict.calls} calls in a cycle ${verdict.times} times in a row with the same results`;
}
