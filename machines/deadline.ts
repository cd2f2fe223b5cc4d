// The deadline watcher: a callback actor that sends one event when a wall-clock deadline passes.
import { fromCallback, type EventObject } from 'xstate';

/** setTimeout cannot wait longer than this; longer waits are re-armed in steps. */
const maxTimerMs = 2_147_483_647;

export interface DeadlineInput {
  /** Epoch milliseconds; null means no deadline. */
  deadline: number | null;
}

/**
 * A callback actor that sends `{ type: eventType }` to its parent once `Date.now()` reaches
 * `input.deadline`. The deadline lives in the parent's context and in this actor's input, so a
 * persisted snapshot restores the same deadline (a bare `after` timer would not survive).
 */
export function createDeadlineWatcher<TType extends string>(eventType: TType) {
  return fromCallback<EventObject, DeadlineInput>(({ input, sendBack }) => {
    const { deadline } = input;
    if (deadline === null) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        sendBack({ type: eventType });
        return;
      }
      timer = setTimeout(arm, Math.min(remaining, maxTimerMs));
    };
    arm();
    return () => clearTimeout(timer);
  });
}
