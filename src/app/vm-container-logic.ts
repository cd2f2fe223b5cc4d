// The container actor logic for the root: the container statechart whose effects, and whose gateway child, load the vm engine
// (dockerode, isomorphic-git, the gateway pool) on first use.
import { createActor, fromCallback, fromPromise, setup, toPromise, type EventObject } from 'xstate';
import { containerMachine, type ContainerEffectInput, type ContainerEvent, type ContainerWorkspace, type InspectContainerOutput, type StartContainerOutput, type StartServicesOutput } from '../../machines/container.machine.js';
import { poolMachine, type CreatePoolContainerInput, type PoolEntry, type RemovePoolContainersInput } from '../../machines/pool.machine.js';
import type { createContainerEffects } from '../container/effects.js';
import type { createPoolEffects } from '../container/pool.js';
import { createGatewayLogic } from '../gateway/actor.js';
import type { Gateways } from '../gateway/pool.js';

export type ContainerEffects = ReturnType<typeof createContainerEffects>;
export type PoolEffects = ReturnType<typeof createPoolEffects>;
type PromiseEffect = Exclude<keyof ContainerEffects, 'watchContainer' | 'watchServices' | 'sandboxSpec'>;
type Watcher = 'watchContainer' | 'watchServices';

/**
 * `containerMachine` with every effect delegated to the container layer's and its gateway to the pool, which `load`
 * provides (dockerode and isomorphic-git stay unloaded until a container is created or attached).
 */
export function lazyContainerLogic(load: () => Promise<{ effects: ContainerEffects; gateways: Gateways }>) {
  const delegate = <T>(name: PromiseEffect) =>
    fromPromise<T, ContainerEffectInput>(async ({ input }) => (await toPromise(createActor((await load()).effects[name], { input }).start())) as T);
  // A callback's sendBack reaches only its parent, so the real watcher runs under a relay that forwards its events.
  const relayed = (name: Watcher) => fromCallback<EventObject, ContainerEffectInput>(({ input, sendBack }) => {
    let relay: { stop(): void } | undefined;
    let stopped = false;
    void load().then(({ effects }) => {
      if (stopped) return;
      const machine = setup({ types: {} as { events: ContainerEvent }, actors: { watch: effects[name] } }).createMachine({
        invoke: { id: 'watch', src: 'watch', input },
        on: { 'container.exited': { actions: ({ event }) => sendBack(event) }, 'service.exited': { actions: ({ event }) => sendBack(event) } },
      });
      relay = createActor(machine).start();
    });
    return () => {
      stopped = true;
      relay?.stop();
    };
  });
  return containerMachine.provide({
    actors: {
      prepareWorkspace: delegate<ContainerWorkspace>('prepareWorkspace'),
      cloneRepository: delegate<void>('cloneRepository'),
      refreshClone: delegate<void>('refreshClone'),
      clearWorkspace: delegate<void>('clearWorkspace'),
      claimPooledContainer: delegate<void>('claimPooledContainer'),
      startContainer: delegate<StartContainerOutput>('startContainer'),
      inspectContainer: delegate<InspectContainerOutput>('inspectContainer'),
      restartContainer: delegate<void>('restartContainer'),
      stopContainer: delegate<void>('stopContainer'),
      cleanUp: delegate<void>('cleanUp'),
      startServices: delegate<StartServicesOutput>('startServices'),
      restartServices: delegate<StartServicesOutput>('restartServices'),
      stopServices: delegate<void>('stopServices'),
      removeServices: delegate<void>('removeServices'),
      watchContainer: relayed('watchContainer'),
      watchServices: relayed('watchServices'),
      gateway: createGatewayLogic(async () => (await load()).gateways),
    },
  });
}

/** `poolMachine` with its effects delegated to the pool effects that `load` provides (the vm engine, loaded on first use). */
export function lazyPoolLogic(load: () => Promise<PoolEffects>) {
  return poolMachine.provide({
    actors: {
      createPoolContainer: fromPromise<PoolEntry, CreatePoolContainerInput>(async ({ input }) => toPromise(createActor((await load()).createPoolContainer, { input }).start())),
      removePoolContainers: fromPromise<void, RemovePoolContainersInput>(async ({ input }) => toPromise(createActor((await load()).removePoolContainers, { input }).start())),
    },
  });
}
