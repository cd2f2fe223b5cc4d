// Keeps the model from going round in circles: the same refused call (name and arguments) twice is named to it plainly; a third time the run stops.
import { createHash } from 'node:crypto';
import type { ToolCall } from '../../model/types.js';

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
  /** Refused twice: the note is added to the tool result the model reads. */
  | { kind: 'warn'; note: string }
  /** Refused a third time: the run stops and the person decides. */
  | { kind: 'stop'; times: number };

export interface LoopGuard {
  /** Records one finished call; refused calls count towards the warning and the stop. */
  record(call: Pick<ToolCall, 'name' | 'input'>, refused: boolean): GuardVerdict;
  /** The person let the model go on: this call starts counting again. */
  forgive(call: Pick<ToolCall, 'name' | 'input'>): void;
}

export function createLoopGuard(options: { warnAt?: number; stopAt?: number } = {}): LoopGuard {
  const warnAt = options.warnAt ?? 2;
  const stopAt = options.stopAt ?? 3;
  const refusals = new Map<string, number>();
  return {
    record(call, refused) {
      if (!refused) return { kind: 'ok' };
      const key = callKey(call);
      const times = (refusals.get(key) ?? 0) + 1;
      refusals.set(key, times);
      if (times >= stopAt) return { kind: 'stop', times };
      if (times >= warnAt) {
        return {
          kind: 'warn',
          note: `You have now made this exact ${call.name} call ${times} times and it was refused each time. Do not make it again: it will be refused again, and a third time stops your work. `
            + 'Change the arguments, use another tool, or end your turn and tell the user what blocks you.',
        };
      }
      return { kind: 'ok' };
    },
    forgive: (call) => void refusals.delete(callKey(call)),
  };
}
