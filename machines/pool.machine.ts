// The warm pool statechart: keeps `size` sandbox containers started ahead of /vm-create (the last /vm-create's repository already
// cloned into them), refilled after a take, drained at exit.
import { assign, fromPromise, setup } from 'xstate';
import type { ContainerWorkspace } from './container.machine.js';

/** A started, locked-down container waiting for a /vm-create whose settings give the same `fit`. */
export interface PoolEntry {
  containerId: string;
  dockerId: string;
  workspace: ContainerWorkspace;
  /** What it was made for (image, limits, env): only a /vm-create asking the same takes it. */
  fit: string;
  /** The repository cloned into its workspace when it was made (a prebuild for the next /vm-create of it); null: empty. */
  repository: string | null;
}

export interface PoolInput {
  size: number;
  fit: string;
  /** The repository of the last /vm-create, if any: spares are made with it cloned. */
  repository?: string | null;
}

export interface PoolContext {
  size: number;
  fit: string;
  /** The repository of the last /vm-create (URL or local path, as /vm-create clones it): spares are prepared for it. */
  repository: string | null;
  ready: PoolEntry[];
  /** Taken out of `ready` to be removed (surplus, unfit, or at exit). */
  removing: PoolEntry[];
  /** /vm-create runs taking a container now: the pool refills only after they settle, so it never competes with them. */
  takes: number;
  draining: boolean;
  lastError: string | null;
}

export type PoolEvent =
  /** vm.warmPool changed (/vm-config --warm-pool). */
  | { type: 'pool.resize'; size: number }
  /** The defaults for new containers changed: what no longer fits is replaced. */
  | { type: 'pool.fit.changed'; fit: string }
  /** A /vm-create of `repository` succeeded: spares are prepared for it from now on, those for another one replaced. */
  | { type: 'pool.repository.changed'; repository: string }
  /** A /vm-create took `containerId` (it left `ready` synchronously, so no other take finds it). */
  | { type: 'pool.taken'; containerId: string }
  /** That /vm-create ended, either way. */
  | { type: 'pool.take.settled' }
  /** cadre exits: the untaken containers are removed (they hold nothing of the person's). */
  | { type: 'pool.drain' };

export interface CreatePoolContainerInput { fit: string; repository: string | null }
export interface RemovePoolContainersInput { entries: PoolEntry[] }

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const fits = (context: PoolContext, entry: PoolEntry): boolean => entry.fit === context.fit && entry.repository === context.repository;

/** Entries that must go: made for other settings or another repository, or beyond the size. */
const surplus = (context: PoolContext): PoolEntry[] => {
  const fitting = context.ready.filter((entry) => fits(context, entry));
  return [...context.ready.filter((entry) => !fits(context, entry)), ...fitting.slice(context.size)];
};

export const poolMachine = setup({
  types: {
    input: {} as PoolInput,
    context: {} as PoolContext,
    events: {} as PoolEvent,
  },
  actors: {
    /** Creates and starts one pool container for `fit` (workspace, gateway folder, limits, labels marking it a pool container), `repository` cloned into it. */
    createPoolContainer: fromPromise<PoolEntry, CreatePoolContainerInput>(notProvided('createPoolContainer')),
    /** Removes pool containers with their workspaces and gateway folders. */
    removePoolContainers: fromPromise<void, RemovePoolContainersInput>(notProvided('removePoolContainers')),
  },
  delays: {
    /** After a failed fill, before the next try. */
    fillRetry: 30_000,
  },
  guards: {
    draining: ({ context }) => context.draining,
    hasSurplus: ({ context }) => surplus(context).length > 0,
    wantsMore: ({ context }) => !context.draining && context.takes === 0 && context.ready.length < context.size,
  },
  actions: {
    recordSize: assign((_, params: { size: number }) => ({ size: params.size })),
    recordFit: assign((_, params: { fit: string }) => ({ fit: params.fit })),
    recordRepository: assign((_, params: { repository: string }) => ({ repository: params.repository })),
    takeOut: assign(({ context }, params: { containerId: string }) => {
      const ready = context.ready.filter((entry) => entry.containerId !== params.containerId);
      return { ready, takes: context.takes + (ready.length < context.ready.length ? 1 : 0) };
    }),
    takeSettled: assign(({ context }) => ({ takes: Math.max(0, context.takes - 1) })),
    markDraining: assign({ draining: true }),
    addEntry: assign(({ context }, params: { entry: PoolEntry }) => ({ ready: [...context.ready, params.entry], lastError: null })),
    recordError: assign((_, params: { error: unknown }) => ({ lastError: describeError(params.error) })),
    setSurplusAside: assign(({ context }) => {
      const going = surplus(context);
      return { ready: context.ready.filter((entry) => !going.includes(entry)), removing: [...context.removing, ...going] };
    }),
    setAllAside: assign(({ context }) => ({ ready: [], removing: [...context.removing, ...context.ready] })),
    forgetRemoved: assign({ removing: [] }),
  },
}).createMachine({
  id: 'pool',
  description: 'The warm pool: sandbox containers started before anyone asks, the last /vm-create\'s repository cloned into them, so /vm-create of it only brings that clone up to date and opens the gateway.',
  context: ({ input }) => ({ size: input.size, fit: input.fit, repository: input.repository ?? null, ready: [], removing: [], takes: 0, draining: false, lastError: null }),
  on: {
    'pool.resize': { actions: { type: 'recordSize', params: ({ event }) => ({ size: event.size }) } },
    'pool.fit.changed': { actions: { type: 'recordFit', params: ({ event }) => ({ fit: event.fit }) } },
    'pool.repository.changed': { actions: { type: 'recordRepository', params: ({ event }) => ({ repository: event.repository }) } },
    'pool.taken': { actions: { type: 'takeOut', params: ({ event }) => ({ containerId: event.containerId }) } },
    'pool.take.settled': { actions: 'takeSettled' },
    'pool.drain': { actions: 'markDraining' },
  },
  initial: 'waiting',
  states: {
    waiting: {
      description: 'Full (or paused while a /vm-create takes a container); any change of size, settings or takes is looked at again.',
      always: [
        { guard: 'draining', target: 'draining' },
        { guard: 'hasSurplus', target: 'trimming' },
        { guard: 'wantsMore', target: 'filling' },
      ],
    },
    filling: {
      description: 'Creating one pool container and cloning the repository into it (one at a time: the machine has other work); an exit waits for it, then removes it too.',
      invoke: {
        id: 'createPoolContainer',
        src: 'createPoolContainer',
        input: ({ context }) => ({ fit: context.fit, repository: context.repository }),
        onDone: { target: 'waiting', actions: { type: 'addEntry', params: ({ event }) => ({ entry: event.output }) } },
        onError: { target: 'resting', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    resting: {
      description: 'A fill failed (context.lastError says why): /vm-create makes containers as usual; the pool tries again later.',
      always: [{ guard: 'draining', target: 'draining' }, { guard: 'hasSurplus', target: 'trimming' }],
      after: { fillRetry: 'waiting' },
    },
    trimming: {
      description: 'Removing containers made for settings or a repository no longer asked for, or beyond the size.',
      entry: 'setSurplusAside',
      invoke: {
        id: 'removeSurplus',
        src: 'removePoolContainers',
        input: ({ context }) => ({ entries: context.removing }),
        onDone: { target: 'waiting', actions: 'forgetRemoved' },
        onError: { target: 'waiting', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    draining: {
      description: 'cadre exits: removing every container nobody took (a taken one is a session\'s and stays).',
      entry: 'setAllAside',
      invoke: {
        id: 'removeUntaken',
        src: 'removePoolContainers',
        input: ({ context }) => ({ entries: context.removing }),
        onDone: { target: 'drained', actions: 'forgetRemoved' },
        onError: { target: 'drained', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    drained: { type: 'final', description: 'No pool container of this process is left.' },
  },
});
