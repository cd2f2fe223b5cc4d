// vm-agent's side of the composition root: container actor logic, /vm-config settings, and the vm engine loaded on first use.
import { join } from 'node:path';
import type { AnyActorRef } from 'xstate';
import type { Config } from '../store/config-schema.js';
import type { CadrePaths } from '../store/paths.js';
import type { OutputSink } from '../output.js';
import { say } from '../output.js';
import { lazyContainerLogic } from './vm-container-logic.js';
import { settingsFromConfig, type ContainerSettings } from '../container/settings.js';
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
  /** A container's settings (the defaults until they are set or loaded). */
  of(id: string): ContainerSettings;
  /** Sets a container's settings and keeps them beside its workspace, for later cadre processes. */
  set(id: string, settings: ContainerSettings): Promise<void>;
  /** Loads the settings kept beside a container's workspace (on attaching to it). */
  load(id: string): Promise<void>;
  forget(id: string): void;
}

function isSettings(value: unknown): value is ContainerSettings {
  const s = value as Partial<ContainerSettings> | undefined;
  return typeof s === 'object' && s !== null && typeof s.memoryBytes === 'number' && typeof s.cpus === 'number' && typeof s.timeoutMinutes === 'number'
    && typeof s.env === 'object' && s.env !== null && typeof s.networkIsolation === 'boolean' && Array.isArray(s.allowedDomains);
}

function createSettingsStore(config: Config, workspacesDir: string): VmSettingsStore {
  let defaults = settingsFromConfig(config.vm);
  const perContainer = new Map<string, ContainerSettings>();
  const rootOf = (id: string): string => join(workspacesDir, id);
  return {
    defaults: () => defaults,
    setDefaults: (settings) => void (defaults = settings),
    of: (id) => perContainer.get(id) ?? defaults,
    set: async (id, settings) => {
      perContainer.set(id, settings);
      const { updateMetadata } = await import('../container/metadata.js');
      await updateMetadata(rootOf(id), { settings: { ...settings } });
    },
    load: async (id) => {
      const { readMetadata } = await import('../container/metadata.js');
      const saved = (await readMetadata(rootOf(id))).settings;
      if (isSettings(saved)) perContainer.set(id, saved);
    },
    forget: (id) => void perContainer.delete(id),
  };
}

export function createVmHost(options: Omit<VmHostOptions, 'settings'>) {
  const settings = createSettingsStore(options.config, options.paths.workspacesDir);
  let loading: Promise<VmEngine> | undefined;
  const engine = (): Promise<VmEngine> => {
    loading ??= import('./vm-engine.js').then(({ createVmEngine }) => createVmEngine({ ...options, settings }));
    loading.catch(() => (loading = undefined));
    return loading;
  };
  let sweeping: Promise<void> | undefined;

  return {
    settings,
    engine,
    containerLogic: lazyContainerLogic(async () => (await engine()).effects),
    /** Whether the engine has been loaded (nothing to close otherwise). */
    loaded: () => loading !== undefined,

    /**
     * Sweeps this installation's containers in the background: stops those past their deadline (workspaces kept) and clears
     * what interrupted creations left. Containers of other installations are never touched. Skipped quietly without Docker.
     */
    sweepInBackground(announce: { interactive: boolean }): void {
      sweeping = (async () => {
        const { createDockerClient } = await import('../container/docker-client.js');
        const docker = createDockerClient();
        if (!(await docker.ping().then(() => true, () => false))) return;
        const [{ sweepContainers }, { loadInstallation }] = await Promise.all([import('../container/sweep.js'), import('../store/installation.js')]);
        const installation = await loadInstallation(options.paths.dataDir);
        const report = await sweepContainers({ docker, installation, workspacesDir: options.paths.workspacesDir, runDir: join(options.paths.dataDir, 'run') });
        for (const record of report.stopped) {
          options.audit('container.deadline-stopped', { containerId: record.id, deadline: new Date(record.deadline).toISOString() });
          options.sink(say(`${record.id} passed its deadline (${new Date(record.deadline).toLocaleString()}): stopped, its workspace kept. /vm-status lists it; /vm-cleanup ${record.id} removes it.`, 'warn'));
        }
        for (const id of report.removedHalfCreated) {
          options.audit('workspace.removed-half-created', { containerId: id });
          options.sink(say(`Removed the half-made workspace of ${id}: its /vm-create was interrupted before the container existed.`, 'dim'));
        }
        if (announce.interactive && report.detached.length > 0) {
          const ids = report.detached.map((record) => record.id).join(', ');
          options.sink(say(`This installation has ${report.detached.length} container${report.detached.length === 1 ? '' : 's'} from earlier sessions (${ids}), kept with their workspaces: /vm-status lists them.`, 'dim'));
        }
      })().catch((error: unknown) => options.sink(say(`Could not check this installation's containers: ${error instanceof Error ? error.message : String(error)}`, 'dim')));
    },

    /** After /save renamed the session: the containers this process holds now belong to `session`. */
    async noteSession(session: string): Promise<void> {
      if (loading) await (await loading.catch(() => undefined))?.noteSession(session);
    },

    /**
     * Attaches the containers of a resumed session (--resume, /resume, the crash offer): each gets a gateway with a fresh
     * credential, and a runner its dead cadre left is stopped. One that is gone leaves the session; one that cannot be attached says why.
     */
    async reattach(ids: readonly string[], current: string | null): Promise<void> {
      if (ids.length === 0) return;
      const vm = await engine();
      const ordered = [...ids.filter((id) => id !== current), ...ids.filter((id) => id === current)];
      for (const id of ordered) {
        try {
          const record = await vm.use(id, 'resume');
          options.sink(say(`Re-attached ${id} (${record.state.running ? 'running; its gateway is open with a fresh credential' : `${record.state.status}: /vm-restart ${id} starts it`}).`, 'dim'));
        } catch (error) {
          const { isCadreError } = await import('../errors.js');
          if (isCadreError(error) && error.code === 'container-not-found') {
            options.session().send({ type: 'container.removed', containerId: id });
            options.sink(say(`${id} of the resumed session no longer exists; it was left out.`, 'warn'));
          } else {
            options.sink(say(`Could not re-attach ${id}: ${error instanceof Error ? error.message : String(error)}${isCadreError(error) && error.remedy ? ` (${error.remedy})` : ''}`, 'warn'));
          }
        }
      }
    },

    /** Closes every gateway this run opened and lets go of its containers: they and their workspaces outlive the process. */
    async close(): Promise<void> {
      await sweeping;
      if (loading) await (await loading.catch(() => undefined))?.closeAll();
    },
  };
}

export type VmHost = ReturnType<typeof createVmHost>;
