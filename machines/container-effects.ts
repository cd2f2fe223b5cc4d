// The container machine's effects as named in setup(): each one fails (or watches nothing) until the composition root provides it.
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { createDeadlineWatcher } from './deadline.js';
import type { ContainerEffectInput, ContainerWorkspace, GatewayInbox, GatewayInput, InspectContainerOutput, ReconfigureInput, StartContainerOutput, StartServicesOutput } from './container-types.js';

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));

export const containerEffects = {
  prepareWorkspace: fromPromise<ContainerWorkspace, ContainerEffectInput>(notProvided('prepareWorkspace')),
  cloneRepository: fromPromise<void, ContainerEffectInput>(notProvided('cloneRepository')),
  /** Brings a pool container's pre-clone of the repository up to date (what a fresh clone gives now), or fails. */
  refreshClone: fromPromise<void, ContainerEffectInput>(notProvided('refreshClone')),
  /** Empties a pool container's workspace (a pre-clone of another repository, or one that could not be refreshed). */
  clearWorkspace: fromPromise<void, ContainerEffectInput>(notProvided('clearWorkspace')),
  /** Makes a taken pool container the session's: its folder prepared, its deadline and claim recorded beside the workspace. */
  claimPooledContainer: fromPromise<void, ContainerEffectInput>(notProvided('claimPooledContainer')),
  startContainer: fromPromise<StartContainerOutput, ContainerEffectInput>(notProvided('startContainer')),
  inspectContainer: fromPromise<InspectContainerOutput, ContainerEffectInput>(notProvided('inspectContainer')),
  restartContainer: fromPromise<void, ContainerEffectInput>(notProvided('restartContainer')),
  stopContainer: fromPromise<void, ContainerEffectInput>(notProvided('stopContainer')),
  cleanUp: fromPromise<void, ContainerEffectInput>(notProvided('cleanUp')),
  /** Starts (or finds again) the service containers and waits until each answers its health check. */
  startServices: fromPromise<StartServicesOutput, ContainerEffectInput>(notProvided('startServices')),
  restartServices: fromPromise<StartServicesOutput, ContainerEffectInput>(notProvided('restartServices')),
  stopServices: fromPromise<void, ContainerEffectInput>(notProvided('stopServices')),
  /** Removes the service containers with their network and data volumes. */
  removeServices: fromPromise<void, ContainerEffectInput>(notProvided('removeServices')),
  /** Sends `service.exited` when a service container stops by itself; the default watches nothing. */
  watchServices: fromCallback<EventObject, ContainerEffectInput>(() => undefined),
  watchDeadline: createDeadlineWatcher('container.deadline.reached'),
  /** The container's gateway on the host (model calls, egress): open while the container runs, closed and its credential revoked after. */
  gateway: fromCallback<GatewayInbox, GatewayInput>(() => undefined),
  /** Sends `container.exited` when the container stops by itself; the default watches nothing. */
  watchContainer: fromCallback<EventObject, ContainerEffectInput>(() => undefined),
  /** Applies a change of settings to the container: memory and CPU on the engine, the deadline beside the workspace and for its init. */
  applySettings: fromPromise<void, ReconfigureInput>(notProvided('applySettings')),
};
