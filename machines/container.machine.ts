// The container statechart: a vm-agent workspace from creation and clone through running, timeout and cleanup.
import { assign, emit, fromCallback, fromPromise, setup, type EventObject } from 'xstate';
import { createDeadlineWatcher } from './deadline.js';

export interface ContainerLimits {
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  diskBytes: number;
}

export interface ContainerInput {
  containerId: string;
  repoUrl: string;
  /** Epoch milliseconds at which the container times out (the spec's default is 30 minutes after creation). */
  deadline: number;
  limits: ContainerLimits;
  /** Set to attach to a container that already exists (made by an earlier cadre process of this installation). */
  dockerId?: string | null;
}

export interface ContainerFailure {
  reason: string;
  oomKilled: boolean;
}

export interface ContainerContext {
  containerId: string;
  repoUrl: string;
  deadline: number;
  limits: ContainerLimits;
  dockerId: string | null;
  failure: ContainerFailure | null;
}

export type ContainerEvent =
  | { type: 'container.progress'; label: string; current?: number; total?: number }
  | { type: 'container.deadline.reached' }
  | { type: 'container.deadline.extended'; deadline: number }
  | { type: 'container.exited'; exitCode: number; oomKilled: boolean; reason: string }
  | { type: 'container.restart' }
  | { type: 'container.stop' }
  | { type: 'container.start' }
  | { type: 'container.cleanup' };

export type ContainerEmitted = { type: 'container.progress'; containerId: string; label: string; current?: number; total?: number };

export interface ContainerEffectInput { containerId: string; repoUrl: string; limits: ContainerLimits; dockerId: string | null; deadline: number }
export interface StartContainerOutput { dockerId: string }
/** What attaching finds: whether the existing container runs. */
export interface InspectContainerOutput { running: boolean }

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const effectInput = ({ context }: { context: ContainerContext }): ContainerEffectInput => ({
  containerId: context.containerId, repoUrl: context.repoUrl, limits: context.limits, dockerId: context.dockerId, deadline: context.deadline,
});

const failWith = { target: '#container.failed', actions: { type: 'recordError', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } } as const;

export const containerMachine = setup({
  types: {
    input: {} as ContainerInput,
    context: {} as ContainerContext,
    events: {} as ContainerEvent,
    emitted: {} as ContainerEmitted,
  },
  actors: {
    prepareWorkspace: fromPromise<void, ContainerEffectInput>(notProvided('prepareWorkspace')),
    cloneRepository: fromPromise<void, ContainerEffectInput>(notProvided('cloneRepository')),
    startContainer: fromPromise<StartContainerOutput, ContainerEffectInput>(notProvided('startContainer')),
    inspectContainer: fromPromise<InspectContainerOutput, ContainerEffectInput>(notProvided('inspectContainer')),
    restartContainer: fromPromise<void, ContainerEffectInput>(notProvided('restartContainer')),
    stopContainer: fromPromise<void, ContainerEffectInput>(notProvided('stopContainer')),
    cleanUp: fromPromise<void, ContainerEffectInput>(notProvided('cleanUp')),
    watchDeadline: createDeadlineWatcher('container.deadline.reached'),
    /** Sends `container.exited` when the container stops by itself; the default watches nothing. */
    watchContainer: fromCallback<EventObject, ContainerEffectInput>(() => undefined),
  },
  guards: {
    attaching: ({ context }) => context.dockerId !== null,
    deadlinePassed: ({ context }) => context.deadline <= Date.now(),
    found: (_, params: { output: InspectContainerOutput }) => params.output.running,
  },
  actions: {
    recordDockerId: assign((_, params: { dockerId: string }) => ({ dockerId: params.dockerId })),
    recordExit: assign((_, params: { exitCode: number; oomKilled: boolean; reason: string }) => ({
      failure: {
        reason: params.oomKilled
          ? `the container ran out of memory (OOMKilled, exit code ${params.exitCode})`
          : `the container exited with code ${params.exitCode}: ${params.reason}`,
        oomKilled: params.oomKilled,
      },
    })),
    recordError: assign((_, params: { error: unknown }) => ({ failure: { reason: describeError(params.error), oomKilled: false } })),
    extendDeadline: assign((_, params: { deadline: number }) => ({ deadline: params.deadline })),
    announceProgress: emit(({ context }, params: { label: string; current?: number; total?: number }) => ({
      type: 'container.progress' as const, containerId: context.containerId, ...params,
    })),
  },
}).createMachine({
  id: 'container',
  description: 'One isolated vm-agent container and its workspace, from creation to cleanup.',
  context: ({ input }) => ({ ...input, dockerId: input.dockerId ?? null, failure: null }),
  initial: 'opening',
  states: {
    opening: {
      description: 'A new container is created; one that already exists (an earlier cadre process made it) is attached to.',
      always: [{ guard: 'attaching', target: 'attaching' }, { target: 'creating' }],
    },
    attaching: {
      description: 'Finding the existing container: running, stopped, or past its deadline.',
      invoke: {
        id: 'inspectContainer',
        src: 'inspectContainer',
        input: effectInput,
        onDone: [
          { guard: 'deadlinePassed', target: 'timed-out' },
          { guard: { type: 'found', params: ({ event }) => ({ output: event.output }) }, target: 'running' },
          { target: 'stopped' },
        ],
        onError: failWith,
      },
    },
    creating: {
      description: 'Preparing the host workspace folder with its disk limit.',
      invoke: { id: 'prepareWorkspace', src: 'prepareWorkspace', input: effectInput, onDone: 'cloning', onError: failWith },
    },
    cloning: {
      description: 'Cloning the repository into the workspace.',
      invoke: { id: 'cloneRepository', src: 'cloneRepository', input: effectInput, onDone: 'starting', onError: failWith },
      on: {
        'container.progress': {
          actions: { type: 'announceProgress', params: ({ event }) => ({ label: event.label, current: event.current, total: event.total }) },
        },
      },
    },
    starting: {
      description: 'Creating and starting the locked-down container.',
      invoke: {
        id: 'startContainer',
        src: 'startContainer',
        input: effectInput,
        onDone: { target: 'running', actions: { type: 'recordDockerId', params: ({ event }) => ({ dockerId: event.output.dockerId }) } },
        onError: failWith,
      },
    },
    running: {
      description: 'The container runs until its deadline, an exit, or a restart, stop or cleanup request.',
      invoke: [
        { id: 'watchDeadline', src: 'watchDeadline', input: ({ context }) => ({ deadline: context.deadline }), onError: failWith },
        { id: 'watchContainer', src: 'watchContainer', input: effectInput, onError: failWith },
      ],
      on: {
        'container.deadline.reached': 'timed-out',
        'container.deadline.extended': {
          target: 'running',
          reenter: true,
          actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
        },
        'container.exited': {
          target: 'failed',
          actions: { type: 'recordExit', params: ({ event }) => ({ exitCode: event.exitCode, oomKilled: event.oomKilled, reason: event.reason }) },
        },
        'container.restart': 'restarting',
        'container.stop': 'stopping',
        'container.cleanup': 'cleaning-up',
      },
    },
    restarting: {
      description: 'Restarting the container in place.',
      invoke: { id: 'restartContainer', src: 'restartContainer', input: effectInput, onDone: 'running', onError: failWith },
    },
    stopping: {
      description: 'Stopping the container; the workspace is kept.',
      invoke: { id: 'stopContainer', src: 'stopContainer', input: effectInput, onDone: 'stopped', onError: failWith },
    },
    stopped: {
      description: 'Stopped: it can be started again or cleaned up.',
      on: { 'container.start': 'starting', 'container.cleanup': 'cleaning-up' },
    },
    'timed-out': {
      description: 'The deadline passed: the container is stopped and waits for cleanup.',
      invoke: { id: 'stopTimedOut', src: 'stopContainer', input: effectInput, onError: failWith },
      on: { 'container.cleanup': 'cleaning-up' },
    },
    failed: {
      description: 'Something went wrong (context.failure says what, including OOMKilled); it waits for cleanup.',
      on: { 'container.cleanup': 'cleaning-up' },
    },
    'cleaning-up': {
      description: "Revoking the session token and removing the container and its workspace.",
      invoke: { id: 'cleanUp', src: 'cleanUp', input: effectInput, onDone: 'cleaned-up', onError: failWith },
    },
    'cleaned-up': { type: 'final', description: 'Nothing of the container remains.' },
  },
});
