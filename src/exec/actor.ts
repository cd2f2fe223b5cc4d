// The /exec runner as XState callback logic: streams output events to its parent; stopping the actor kills the command.
import { fromCallback } from 'xstate';
import { runShellCommand, type ExecOptions, type ExecResult } from './run.js';

export type ExecActorEvent =
  | { type: 'exec.output'; stream: 'stdout' | 'stderr'; chunk: string }
  | { type: 'exec.finished'; command: string; result: ExecResult }
  | { type: 'exec.failed'; command: string; message: string };

export type ExecActorInput = Omit<ExecOptions, 'signal' | 'onOutput'>;

export const execCommand = fromCallback<{ type: 'exec.cancel' }, ExecActorInput>(({ input, sendBack, receive }) => {
  const controller = new AbortController();
  receive((event) => {
    if (event.type === 'exec.cancel') controller.abort();
  });
  runShellCommand({ ...input, signal: controller.signal, onOutput: (stream, chunk) => sendBack({ type: 'exec.output', stream, chunk } satisfies ExecActorEvent) })
    .then((result) => sendBack({ type: 'exec.finished', command: input.command, result } satisfies ExecActorEvent))
    .catch((error: unknown) => sendBack({ type: 'exec.failed', command: input.command, message: error instanceof Error ? error.message : String(error) } satisfies ExecActorEvent));
  return () => controller.abort();
});
