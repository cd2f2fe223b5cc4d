// vm-agent's side of the composition root: container actor logic, /vm-config settings, and the vm engine loaded on first use.
import type { AnyActorRef } from 'xstate';
import type { Config } from '../store/config-schema.js';
import type { CadrePaths } from '../store/paths.js';
import type { OutputSink } from './output.js';
import { say } from './output.js';
import { lazyContainerLogic } from './vm-container-logic.js';
import { settingsFromConfig, type ContainerSettings } from './vm-settings.js';
import type { VmEngine } from './vm-engine.js';

export interface VmHostOptions {
  paths: CadrePaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  version: string;
  /** The root actor (container actors are its children). */
  root: () => { send(event: { type: string } & Record<string, unknown>): void; system: { get(id: string): AnyActorRef | undefined } };
  session: () => AnyActorRef;
  settings: VmSettingsStore;
}

export interface VmSettingsStore {
  defaults(): ContainerSettings;
  setDefaults(settings: ContainerSettings): void;
  /** A container's settings (the defaults for one this run did not create). */
  of(id: string): ContainerSettings;
  set(id: string, settings: ContainerSettings): void;
  has(id: string): boolean;
  forget(id: string): void;
}

function createSettingsStore(config: Config): VmSettingsStore {
  let defaults = settingsFromConfig(config.vm);
  const perContainer = new Map<string, ContainerSettings>();
  return {
    defaults: () => defaults,
    setDefaults: (settings) => void (defaults = settings),
    of: (id) => perContainer.get(id) ?? defaults,
    set: (id, settings) => void perContainer.set(id, settings),
    has: (id) => perContainer.has(id),
    forget: (id) => void perContainer.delete(id),
  };
}

export function createVmHost(options: Omit<VmHostOptions, 'settings'>) {
  const settings = createSettingsStore(options.config);
  let loading: Promise<VmEngine> | undefined;
  const engine = (): Promise<VmEngine> => {
    loading ??= import('./vm-engine.js').then(({ createVmEngine }) => createVmEngine({ ...options, settings }));
    loading.catch(() => (loading = undefined));
    return loading;
  };
  let reaping: Promise<void> | undefined;

  return {
    settings,
    engine,
    containerLogic: lazyContainerLogic(async () => (await engine()).effects),
    /** Whether the engine has been loaded (nothing to close otherwise). */
    loaded: () => loading !== undefined,

    /**
     * Reaps orphaned cadre containers (owner gone or deadline passed) in the background and reports them;
     * `keepSession` names a resumed session whose containers stay. Skipped quietly when Docker is absent.
     */
    reapInBackground(keepSession: string | undefined): void {
      reaping = (async () => {
        const { createDockerClient } = await import('../container/docker-client.js');
        const docker = createDockerClient();
        if (!(await docker.ping().then(() => true, () => false))) return;
        const { reapOrphans } = await import('../container/reaper.js');
        const reaped = await reapOrphans({ docker, keep: (record) => keepSession !== undefined && record.session === keepSession });
        for (const item of reaped) {
          options.audit('container.reaped', { ...item });
          options.sink(say(`Removed orphaned container ${item.id} of session "${item.session}" (${item.reason === 'deadline-passed' ? 'its deadline passed' : 'its cadre process is gone'}${item.removedWorkspace ? ', workspace deleted' : ''}).`, 'warn'));
        }
      })().catch((error: unknown) => options.sink(say(`Could not check for orphaned containers: ${error instanceof Error ? error.message : String(error)}`, 'dim')));
    },

    /** Closes every gateway this run opened (containers outlive it until their deadline or the next start's reaper). */
    async close(): Promise<void> {
      await reaping;
      if (loading) await (await loading.catch(() => undefined))?.closeAll();
    },
  };
}

export type VmHost = ReturnType<typeof createVmHost>;
