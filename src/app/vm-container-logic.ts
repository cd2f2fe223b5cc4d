// The container actor logic for the root: the container statechart whose effects (plain functions of input and abort signal),
// and whose gateway child, load the vm engine (dockerode, isomorphic-git, the gateway pool) on first use.
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { containerMachine, type ContainerEffectInput, type ContainerWorkspace, type ReconfigureInput, type InspectContainerOutput, type StartContainerOutput, type StartServicesOutput } from '../../machines/container.machine.js';
import { poolMachine } from '../../machines/pool.machine.js';
import type { ContainerEffects, Effect, Watcher } from '../container/effects.js';
import type { PoolEffects } from '../container/pool.js';
import { createGatewayLogic } from '../gateway/actor.js';
import type { Gateways } from '../gateway/pool.js';

export type { ContainerEffects, PoolEffects };

/** `effect` as promise logic, once: stopping the actor aborts the signal the effect was given, which stops its work. */
export function effectLogic<Input, Output>(effect: (signal: AbortSignal) => Promise<Effect<Input, Output>>) {
  return fromPromise<Output, Input>(async ({ input, signal }) => (await effect(signal))(input, signal));
}

/** `watcher` as callback logic, once: its events go to the parent; stopping the actor ends the watch. */
export function watcherLogic<Event extends EventObject>(watcher: () => Promise<Watcher<ContainerEffectInput, Event>>) {
  return fromCallback<EventObject, ContainerEffectInput>(({ input, sendBack }) => {
    const abort = new AbortController();
    void watcher().then((watch) => {
      if (!abort.signal.aborted) watch(input, sendBack, abort.signal);
    }, () => undefined);
    return () => abort.abort();
  });
}

/** The container machine's effect actors over the effects `load` gives, each wrapped once. */
export function containerActors(load: () => Promise<ContainerEffects>) {
  const effects = async (signal?: AbortSignal): Promise<ContainerEffects> => {
    const loaded = await load();
    signal?.throwIfAborted();
    return loaded;
  };
  const effect = <Output>(name: Exclude<keyof ContainerEffects, 'sandboxSpec' | 'watchContainer' | 'watchServices'>) =>
    effectLogic<ContainerEffectInput, Output>(async (signal) => (await effects(signal))[name] as Effect<ContainerEffectInput, Output>);
  return {
    prepareWorkspace: effect<ContainerWorkspace>('prepareWorkspace'),
    cloneRepository: effect<void>('cloneRepository'),
    refreshClone: effect<void>('refreshClone'),
    clearWorkspace: effect<void>('clearWorkspace'),
    claimPooledContainer: effect<void>('claimPooledContainer'),
    startContainer: effect<StartContainerOutput>('startContainer'),
    inspectContainer: effect<InspectContainerOutput>('inspectContainer'),
    restartContainer: effect<void>('restartContainer'),
    stopContainer: effect<void>('stopContainer'),
    cleanUp: effect<void>('cleanUp'),
    startServices: effect<StartServicesOutput>('startServices'),
    restartServices: effect<StartServicesOutput>('restartServices'),
    stopServices: effect<void>('stopServices'),
    removeServices: effect<void>('removeServices'),
    watchContainer: watcherLogic(async () => (await effects()).watchContainer),
    watchServices: watcherLogic(async () => (await effects()).watchServices),
  };
}

/**
 * `containerMachine` with every effect taken from the container layer's and its gateway from the pool, which `load`
 * provides (dockerode and isomorphic-git stay unloaded until a container is created or attached).
 */
export function lazyContainerLogic(load: () => Promise<{ effects: ContainerEffects; gateways: Gateways; applySettings: Effect<ReconfigureInput, void> }>) {
  return containerMachine.provide({
    actors: {
      ...containerActors(async () => (await load()).effects),
      gateway: createGatewayLogic(async () => (await load()).gateways),
      applySettings: effectLogic(async () => (await load()).applySettings),
    },
  });
}

/** The pool machine's effect actors over the pool effects `load` gives. */
export function poolActors(load: () => Promise<PoolEffects>) {
  return {
    createPoolContainer: effectLogic(async () => (await load()).createPoolContainer),
    removePoolContainers: effectLogic(async () => (await load()).removePoolContainers),
  };
}

/** `poolMachine` with its effects taken from the pool effects that `load` provides (the vm engine, loaded on first use). */
export function lazyPoolLogic(load: () => Promise<PoolEffects>) {
  return poolMachine.provide({ actors: poolActors(load) });
}
