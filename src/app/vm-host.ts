// vm-agent's side of the composition root: the container actor logic, /vm-config's defaults, the start-up sweep, and the vm
// engine loaded on first use.
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { settingsFromConfig, type ContainerSettings } from '../container/settings.js';
import { isCadreError } from '../errors.js';
import { say } from '../output.js';
import type { VmEngine, VmSideOptions } from './vm-engine.js';
import { lazyContainerLogic, lazyPoolLogic } from './vm-container-logic.js';

export type VmHostOptions = VmSideOptions;

/** Whether `dir` exists and holds anything. */
async function anyEntry(dir: string): Promise<boolean> {
  const handle = await opendir(dir).catch(() => undefined);
  if (!handle) return false;
  try {
    return (await handle.read()) !== null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function warmGatewayCaches(): Promise<void> {
  const [{ packageManagerRegistryHosts }, { packageManagerSetting }] = await Promise.all([import('../gateway/registries.js'), import('../gateway/host-package-config.js')]);
  await Promise.all([packageManagerRegistryHosts(), packageManagerSetting('npm', ['config', 'get', 'cafile'])]).catch(() => undefined);
}

/**
 * Sweeps this installation's containers once: stops those past their deadline (workspaces kept) and clears what interrupted
 * creations left; false when no engine answers (nor is there one for a warm pool).
 */
async function sweepOnce(options: VmHostOptions, interactive: boolean): Promise<boolean> {
  // Every container of this installation has a workspace folder, and every gateway a run folder: with neither, there is
  // nothing to sweep, and the Docker client (the heaviest module cadre has) stays unloaded for a session that uses no container.
  if (!(await anyEntry(options.paths.workspacesDir)) && !(await anyEntry(join(options.paths.dataDir, 'run')))) return true;
  const { createDockerClient } = await import('../container/docker-client.js');
  const docker = createDockerClient({ engine: options.config.vm.engine });
  if (!(await docker.ping().then(() => true, () => false))) return false;
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
  for (const id of report.removedPool) options.audit('pool.removed-left-over', { containerId: id });
  if (interactive && report.detached.length > 0) {
    const ids = report.detached.map((record) => record.id).join(', ');
    options.sink(say(`This installation has ${report.detached.length} container${report.detached.length === 1 ? '' : 's'} from earlier sessions (${ids}), kept with their workspaces: /vm-status lists them.`, 'dim'));
  }
  return true;
}

export function createVmHost(options: VmHostOptions) {
  let defaults = settingsFromConfig(options.config.vm);
  let warmPool = options.config.vm.warmPool;
  let loading: Promise<VmEngine> | undefined;
  let warmed = false;
  /** The vm engine, loaded once. `gateway: false`: the caller opens no gateway (a listing, a cleanup), so nothing is warmed for one. */
  const engine = (use: { gateway?: boolean } = {}): Promise<VmEngine> => {
    if (use.gateway !== false && !warmed) {
      // What the first gateway needs (the package managers' registries and CA file) is asked while the vm side's modules
      // load: each is cached (host-package-config.ts). The tokenizer is not: the first model call loads it (gateway/server.ts);
      // its tables were ~0.15-0.4 s of CPU in every /vm-create, most of which never calls a model in that process.
      warmed = true;
      void warmGatewayCaches();
    }
    loading ??= (async () => {
      const { createVmEngine } = await import('./vm-engine.js');
      return createVmEngine({ ...options, defaults: () => defaults });
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  };
  let sweeping: Promise<void> | undefined;
  const startPool = (): void => {
    void engine().then((loaded) => loaded.warmPool(warmPool)).catch((error: unknown) =>
      options.sink(say(`The warm pool could not start: ${error instanceof Error ? error.message : String(error)}; /vm-create makes containers as usual.`, 'warn')));
  };

  return {
    engine,
    containerLogic: lazyContainerLogic(async () => {
      const loaded = await engine();
      return { effects: loaded.effects, gateways: loaded.gateways, applySettings: loaded.applySettings };
    }),
    poolLogic: lazyPoolLogic(async () => (await engine()).poolEffects),
    /** /vm-config's defaults for new containers (from the config, then changed by /vm-config without --container). */
    defaults: (): ContainerSettings => defaults,
    setDefaults(settings: ContainerSettings): void {
      defaults = settings;
      if (loading) void loading.then((loaded) => loaded.defaultsChanged(), () => undefined);
    },
    /** How many warm-pool spares this process keeps (vm.warmPool, then /vm-config --warm-pool). */
    warmPool: (): number => warmPool,
    /** Sets the warm pool's size; the pool fills (or shrinks) in the background, and says so if it cannot. */
    setWarmPool(size: number): void {
      warmPool = size;
      if (size > 0 || loading) startPool();
    },
    /** At exit, while the root still runs: the spares nobody took are removed. */
    async drainPool(): Promise<void> {
      if (loading) await (await loading.catch(() => undefined))?.drainPool();
    },
    /** Whether the engine has been loaded (nothing to close otherwise). */
    loaded: () => loading !== undefined,

    /**
     * Sweeps this installation's containers in the background: stops those past their deadline (workspaces kept) and clears
     * what interrupted creations left. Containers of other installations are never touched. Skipped quietly without Docker.
     */
    sweepInBackground(announce: { interactive: boolean }): void {
      sweeping = sweepOnce(options, announce.interactive)
        // The pool fills once the sweep has removed what a dead process's pool left: after the prompt is up, in the background.
        .then((engineThere) => {
          if (engineThere && warmPool > 0) startPool();
        })
        .catch((error: unknown) => options.sink(say(`Could not check this installation's containers: ${error instanceof Error ? error.message : String(error)}`, 'dim')));
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
          if (isCadreError(error) && error.code === 'container-not-found') {
            options.session().send({ type: 'container.removed', containerId: id });
            options.sink(say(`${id} of the resumed session no longer exists; it was left out.`, 'warn'));
          } else {
            options.sink(say(`Could not re-attach ${id}: ${error instanceof Error ? error.message : String(error)}${isCadreError(error) && error.remedy ? ` (${error.remedy})` : ''}`, 'warn'));
          }
        }
      }
    },

    /** Lets go of every container this run holds (gateways closed, claims dropped): they and their workspaces outlive the process. */
    async close(): Promise<void> {
      await sweeping;
      if (loading) await (await loading.catch(() => undefined))?.closeAll();
    },
  };
}

export type VmHost = ReturnType<typeof createVmHost>;
