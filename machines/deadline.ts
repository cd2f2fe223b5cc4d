// The deadline watcher: a callback actor that sends one event when a wall-clock deadline passes.
import { fromCallback, type EventObject } from 'xstate';

/** setTimeout cannot wait longer than this; longer waits are re-armed in steps. */
const maxTimerMs = 2_147_483_647;

export interface DeadlineInput {
  /** Epoch milliseconds; null means no deadline. */
  deadline: number | null;
}

/** Sent to the watcher when the deadline moves (a shorter or longer timeout): it waits for the new one from then on. */
export interface DeadlineMoved {
  type: 'deadline.moved';
  deadline: number | null;
}

/**
 * A callback actor that sends `{ type: eventType }` to its parent once `Date.now()` reaches
 * `input.deadline`. The deadline lives in the parent's context and in this actor's input, so a
 * persisted snapshot restores the same deadline (a bare `after` timer would not survive).
 */
export function createDeadlineWatcher<TType extends string>(eventType: TType) {
  return fromCallback<EventObject, DeadlineInput>(({ input, sendBack, receive }) => {
    let { deadline } = input;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let fired = false;
    const arm = (): void => {
      clearTimeout(timer);
      if (deadline === null || fired) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        fired = true;
        sendBack({ type: eventType });
        return;
      }
      timer = setTimeout(arm, Math.min(remaining, maxTimerMs));
    };
    receive((event) => {
      if (event.type !== 'deadline.moved') return;
      deadline = (event as DeadlineMoved).deadline;
      arm();
    });
    arm();
    return () => clearTimeout(timer);
  });
}
