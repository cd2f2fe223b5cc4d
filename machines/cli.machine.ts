// The root statechart: start-up, the prompt loop (one command at a time), Ctrl-C / Ctrl-D handling, shut-down.
import { assign, emit, enqueueActions, fromCallback, fromPromise, setup, spawnChild } from 'xstate';
import { containerMachine, type ContainerInput } from './container.machine.js';
import { poolMachine, type PoolInput } from './pool.machine.js';
import { sessionMachine, type SessionInput } from './session.machine.js';

export interface CliInput {
  cwd: string;
  /** The session the root spawns at start (systemId "session"). */
  session: SessionInput;
}

export interface CliContext {
  cwd: string;
  session: SessionInput;
  lastExitCode: number;
}

export interface CliOutput {
  exitCode: number;
}

export type CliEvent =
  | { type: 'input.line'; text: string }
  | { type: 'input.interrupt' }
  | { type: 'input.eof' }
  /** Spawns a container actor `container:<id>` (systemId the same), adopting an existing one when `dockerId` is set. */
  | { type: 'container.spawn'; input: ContainerInput }
  /** Stops and forgets a container actor once it is cleaned up. */
  | { type: 'container.forget'; containerId: string }
  /** Spawns the warm pool `pool` (systemId the same) unless it runs; vm.warmPool > 0 or /vm-config --warm-pool asked for it. */
  | { type: 'pool.spawn'; input: PoolInput }
  /** The audit actor could not write: said once, and the session goes on. */
  | { type: 'audit.failed'; code: string; message: string; remedy: string };

/** What the audit actor accepts: records to append, and the close that seals the log. */
export type AuditInbox =
  | { type: 'audit.record'; recordType: string; data: unknown }
  | { type: 'audit.close' };

/** Notifications for the renderer; the composition root may replace the actions that emit them. */
export type CliEmitted =
  | { type: 'cli.error'; error: unknown }
  | { type: 'cli.audit-failed'; message: string; remedy: string }
  | { type: 'cli.exit-armed' }
  | { type: 'cli.interrupted' };

export interface RunCommandInput { text: string }
/** `exit` asks the root to shut down after the command (/exit). */
export interface RunCommandOutput { exitCode: number; exit?: boolean }

/** Exit code of a command stopped by Ctrl-C (128 + SIGINT). */
const interruptedExitCode = 130;

export const cliMachine = setup({
  types: {
    input: {} as CliInput,
    context: {} as CliContext,
    events: {} as CliEvent,
    output: {} as CliOutput,
    emitted: {} as CliEmitted,
  },
  actors: {
    startUp: fromPromise<void, CliInput>(async () => undefined),
    runCommand: fromPromise<RunCommandOutput, RunCommandInput>(() =>
      Promise.reject(new Error('runCommand is not provided: the composition root must supply it with machine.provide()'))),
    shutDown: fromPromise<void, CliInput>(async () => undefined),
    session: sessionMachine,
    container: containerMachine,
    pool: poolMachine,
    /** The single writer of the audit trail; the composition root provides the real one. */
    audit: fromCallback<AuditInbox>(() => undefined),
  },
  guards: {
    exitRequested: (_, params: { output: RunCommandOutput }) => params.output.exit === true,
  },
  actions: {
    reportError: emit((_, params: { error: unknown }) => ({ type: 'cli.error' as const, error: params.error })),
    announceExitArmed: emit({ type: 'cli.exit-armed' }),
    announceInterrupted: emit({ type: 'cli.interrupted' }),
    recordExitCode: assign((_, params: { exitCode: number }) => ({ lastExitCode: params.exitCode })),
    reportAuditFailure: emit((_, params: { message: string; remedy: string }) => ({ type: 'cli.audit-failed' as const, ...params })),
    spawnContainer: enqueueActions(({ enqueue, system }, params: { input: ContainerInput }) => {
      const id = `container:${params.input.containerId}`;
      if (system.get(id)) return;
      enqueue.spawnChild('container', { id, systemId: id, input: params.input });
    }),
    forgetContainer: enqueueActions(({ enqueue }, params: { containerId: string }) => {
      enqueue.stopChild(`container:${params.containerId}`);
    }),
    spawnPool: enqueueActions(({ enqueue, system }, params: { input: PoolInput }) => {
      if (system.get('pool')?.getSnapshot().status === 'active') return;
      enqueue.spawnChild('pool', { id: 'pool', systemId: 'pool', input: params.input });
    }),
  },
}).createMachine({
  id: 'cli',
  description: 'The root actor: reads input, runs one command at a time, and exits with the last exit code.',
  context: ({ input }) => ({ cwd: input.cwd, session: input.session, lastExitCode: 0 }),
  entry: [
    spawnChild('audit', { id: 'audit', systemId: 'audit' }),
    spawnChild('session', { id: 'session', systemId: 'session', input: ({ context }) => context.session }),
  ],
  on: {
    'container.spawn': { actions: { type: 'spawnContainer', params: ({ event }) => ({ input: event.input }) } },
    'container.forget': { actions: { type: 'forgetContainer', params: ({ event }) => ({ containerId: event.containerId }) } },
    'pool.spawn': { actions: { type: 'spawnPool', params: ({ event }) => ({ input: event.input }) } },
    'audit.failed': { actions: { type: 'reportAuditFailure', params: ({ event }) => ({ message: event.message, remedy: event.remedy }) } },
  },
  initial: 'starting',
  output: ({ context }) => ({ exitCode: context.lastExitCode }),
  states: {
    starting: {
      description: 'Loading config, the session and the audit trail.',
      invoke: {
        id: 'startUp',
        src: 'startUp',
        input: ({ context }) => ({ cwd: context.cwd, session: context.session }),
        onDone: 'idle',
        onError: { target: 'idle', actions: { type: 'reportError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    idle: {
      description: 'The prompt is shown and waits for a line.',
      initial: 'ready',
      on: {
        'input.line': 'dispatching',
        'input.eof': 'exiting',
      },
      states: {
        ready: {
          description: 'Waiting for input; Ctrl-C arms the exit.',
          on: { 'input.interrupt': { target: 'exit-armed', actions: 'announceExitArmed' } },
        },
        'exit-armed': {
          description: 'Ctrl-C was pressed at an idle prompt; a second Ctrl-C exits.',
          on: { 'input.interrupt': '#cli.exiting' },
        },
      },
    },
    dispatching: {
      description: 'One command runs; Ctrl-C aborts it (leaving the state stops the command actor).',
      invoke: {
        id: 'runCommand',
        src: 'runCommand',
        input: ({ event }) => ({ text: event.type === 'input.line' ? event.text : '' }),
        onDone: [
          {
            guard: { type: 'exitRequested', params: ({ event }) => ({ output: event.output }) },
            target: 'exiting',
            actions: { type: 'recordExitCode', params: ({ event }) => ({ exitCode: event.output.exitCode }) },
          },
          { target: 'idle', actions: { type: 'recordExitCode', params: ({ event }) => ({ exitCode: event.output.exitCode }) } },
        ],
        onError: {
          target: 'idle',
          actions: [
            { type: 'reportError', params: ({ event }) => ({ error: event.error }) },
            { type: 'recordExitCode', params: { exitCode: 1 } },
          ],
        },
      },
      on: {
        'input.interrupt': {
          target: 'idle',
          actions: [{ type: 'recordExitCode', params: { exitCode: interruptedExitCode } }, 'announceInterrupted'],
        },
      },
    },
    exiting: {
      description: 'Saving the session and closing the audit trail.',
      invoke: {
        id: 'shutDown',
        src: 'shutDown',
        input: ({ context }) => ({ cwd: context.cwd, session: context.session }),
        onDone: 'stopped',
        onError: { target: 'stopped', actions: { type: 'reportError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    stopped: {
      type: 'final',
      description: 'cadre has shut down; the output carries the exit code.',
    },
  },
});
