// A session's token budget: reserve before a model call, settle with the provider's usage after it; never overshoots.

export const defaultTokenBudget = 50_000;

export interface Reservation {
  readonly id: number;
  readonly tokens: number;
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface BudgetSnapshot {
  limit: number;
  /** Tokens the provider reported as used (settled calls). */
  used: number;
  /** Tokens held by calls in flight. */
  reserved: number;
  remaining: number;
}

export type BudgetEvent =
  | { type: 'budget.updated'; used: number; limit: number; remaining: number }
  /** Sent once, the first time a reservation does not fit. */
  | { type: 'budget.exhausted'; used: number; limit: number; message: string };

export type ReserveResult = { ok: true; reservation: Reservation } | { ok: false; used: number; limit: number; message: string };

export interface Budget {
  reserve(tokens: number): ReserveResult;
  /**
   * Releases the reservation and charges what the provider reported; without a report the whole
   * reservation is charged. Settling twice is a no-op.
   */
  settle(reservation: Reservation, usage: TokenUsage | undefined): void;
  snapshot(): BudgetSnapshot;
}

/**
 * Creates a budget. Calls run on one event loop, so a reservation is checked and taken in one
 * synchronous step: concurrent calls can hold at most `limit` tokens between them.
 */
export function createBudget(options: { limit?: number; onEvent?: (event: BudgetEvent) => void } = {}): Budget {
  const limit = options.limit ?? defaultTokenBudget;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`token budget must be a positive integer, got ${limit}`);
  const emit = options.onEvent ?? (() => undefined);
  const open = new Map<number, number>();
  let used = 0;
  let reserved = 0;
  let nextId = 1;
  let exhaustedSent = false;

  const snapshot = (): BudgetSnapshot => ({ limit, used, reserved, remaining: Math.max(0, limit - used - reserved) });

  return {
    reserve(tokens) {
      const wanted = Math.max(1, Math.ceil(tokens));
      if (used + reserved + wanted > limit) {
        const message = `token budget exhausted: used ${used} of ${limit}`;
        if (!exhaustedSent) {
          exhaustedSent = true;
          emit({ type: 'budget.exhausted', used, limit, message });
        }
        return { ok: false, used, limit, message };
      }
      const reservation = { id: nextId++, tokens: wanted };
      open.set(reservation.id, wanted);
      reserved += wanted;
      return { ok: true, reservation };
    },
    settle(reservation, usage) {
      const held = open.get(reservation.id);
      if (held === undefined) return;
      open.delete(reservation.id);
      reserved -= held;
      used += usage === undefined ? held : usage.input + usage.output;
      const { remaining } = snapshot();
      emit({ type: 'budget.updated', used, limit, remaining });
    },
    snapshot,
  };
}
