// The vm side of cadre, loaded on first use: the Docker client, credentials, the session's budget, the gateway pool, and the
// container actors (each with its gateway child) that this process holds. Containers belong to their installation and outlive it.
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor, type AnyActorRef } from 'xstate';
import type { ContainerContext, ContainerInput } from '../../machines/container.machine.js';
import type { PoolEntry } from '../../machines/pool.machine.js';
import { runnerBundleBind, runnerBundleDir } from '../agents/vm/bundle.js';
import { attachmentLive, claimAttachment, readAttachment, releaseAttachment, releaseMyClaims, type Attachment } from '../container/attachment.js';
import { createDockerClient } from '../container/docker-client.js';
import { createLocalDockerBackend } from '../container/backends/local-docker.js';
import { createContainerEffects } from '../container/effects.js';
import { createVmBudget } from './vm-budget.js';
import { createEditorListeners } from '../container/editor/publish.js';
import { editorVolumeBind, ensureEditorVolume } from '../container/editor/volume.js';
import { linkRunFolder, neutralCopy, neutralFolder } from '../container/neutral-folder.js';
import { isContainerId, newContainerId } from '../container/labels.js';
import { cleanUp } from '../container/lifecycle.js';
import { defaultLimits, parseLimitsConfig, type ContainerLimits } from '../container/limits.js';
import { readMetadata, updateMetadata } from '../container/metadata.js';
import { createPoolEffects, poolFitKey } from '../container/pool.js';
import { createPoolHost } from './vm-pool-host.js';
import { belongsTo, findContainer, foreignContainer, listCadreContainers, saveDeadline, untakenPoolContainer, type ContainerRecord } from '../container/records.js';
import { buildSandboxImage, imageRegistries, sandboxImagePresent } from '../container/sandbox-image.js';
import { sandboxImageName, sandboxRepository } from '../container/sandbox-recipe.js';
import { applySettingsChange, isContainerSettings, type ContainerSettings, type SettingsChange } from '../container/settings.js';
import { detectServices, type ServiceSuggestion } from '../container/services/detect.js';
import { listServices, removeServices, type ServiceRecord } from '../container/services/runtime.js';
import { workspacePaths } from '../container/workspace.js';
import { CadreError, exitCodes, isCadreError } from '../errors.js';
import { containerGatewayEnv } from '../gateway/container-env.js';
import { openCredentials } from '../gateway/credentials.js';
import { packageManagerRegistryHosts, registryHostsOf } from '../gateway/registries.js';
import { packageManagerEnv } from '../container/package-manager-env.js';
import { containerCaPath, createGateways, gatewayModel, hostCaBundle, hostNpmRegistry } from '../gateway/pool.js';
import { workspaceChanges, type WorkspaceChanges } from '../git/workspace-changes.js';
import { createContainerMcp } from '../mcp/for-containers.js';
import { say, type OutputSink } from '../output.js';
import type { Config } from '../store/config-schema.js';
import { loadInstallation } from '../store/installation.js';
import type { CadrePaths } from '../store/paths.js';

const forwarderCommand = ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'];
const startRemedy = (repoUrl: string) =>
  `check the runtime with /system-status --container-runtime, the repository with /test-connectivity ${repoUrl}, and free resources with /system-resources --available`;

/** The root actor as the vm side needs it: container actors are its children. */
export interface RootRef {
  send(event: { type: string } & Record<string, unknown>): void;
  system: { get(id: string): AnyActorRef | undefined };
  getSnapshot(): { children: Record<string, AnyActorRef | undefined> };
}

/** What the vm side is built from (vm-host passes it on to the engine it loads). */
export interface VmSideOptions {
  paths: CadrePaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  version: string;
  /** The root actor (container actors are its children). */
  root: () => RootRef;
  session: () => AnyActorRef;
}

export interface VmEngineOptions extends VmSideOptions {
  /** /vm-config's defaults for new containers. */
  defaults: () => ContainerSettings;
}

/** One of this installation's containers, as /vm-status lists it. */
export interface ContainerListing {
  id: string;
  state: string;
  /** The session it belongs to now. */
  session: string;
  repoUrl: string;
  deadline: string;
  /** Which cadre holds it (its gateway), or null when none does. */
  heldBy: string | null;
  changes: WorkspaceChanges;
  workspace: string;
}

export interface ContainerList {
  containers: ContainerListing[];
  /** Workspaces of this installation whose container is gone (removed outside cadre): kept until /vm-cleanup. */
  orphanWorkspaces: { id: string; workspace: string; session: string | null; changes: WorkspaceChanges }[];
  /** How many containers of other installations share the engine (never touched). */
  foreign: number;
  /** This process's warm pool: spares ready for /vm-create (they are nobody's yet, so not listed above). */
  pool: { size: number; ready: number; lastError: string | null } | null;
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** The container machine's limits from a record of the engine. */
const machineLimits = (record: ContainerRecord) => ({ memoryBytes: record.limits.memoryBytes, nanoCpus: Math.round(record.limits.cpus * 1e9), pidsLimit: record.limits.pids, diskBytes: record.limits.diskBytes });

type ContainerSnapshot = { value: unknown; status: string; context: ContainerContext; matches(state: string): boolean };

export async function createVmEngine(options: VmEngineOptions) {
  const { paths, config, sink, audit } = options;
  const docker = createDockerClient({ engine: options.config.vm.engine });
  const [credentials, installation] = await Promise.all([openCredentials({ keysDir: paths.keysDir }), loadInstallation(paths.dataDir)]);
  const runDir = join(paths.dataDir, 'run');
  // What is bound into a container comes from a folder whose path names neither this install nor the cadre home (mountinfo shows it).
  const neutral = await neutralFolder(installation);
  await linkRunFolder(runDir, neutral);
  const sessionContext = () => options.session().getSnapshot().context as { name: string; budget: { limit: number; used: number } };
  const { budget, close: closeBudget } = await createVmBudget({ dataDir: paths.dataDir, session: options.session, audit, sink });
  const model = gatewayModel(config, options.env);
  const [registry, caBundle] = await Promise.all([hostNpmRegistry(), hostCaBundle(options.env)]);
  const caBinds = caBundle ? [`${await neutralCopy(caBundle, neutral, 'host-ca')}:${containerCaPath}:ro`] : [];
  const caEnv: Record<string, string> = caBundle ? { NODE_EXTRA_CA_CERTS: containerCaPath, npm_config_cafile: containerCaPath, GIT_SSL_CAINFO: containerCaPath } : {};
  // MCP servers configured for containers run here, on the host, once for every container this process holds.
  const mcp = createContainerMcp({ servers: config.mcp.servers, cwd: paths.projectDir, sink, version: options.version });
  const image = config.vm.image === 'cadre-sandbox:latest' ? sandboxImageName(options.version) : config.vm.image;
  // The image's package managers' defaults are read once (the image is fixed for this process); the host's npm and yarn
  // configuration is asked through host-package-config, which asks again only when that configuration changes.
  let imageRegistryHosts: Promise<string[]> | undefined;
  const registryHosts = async (id: string): Promise<string[]> => {
    imageRegistryHosts ??= imageRegistries(docker, image).then(registryHostsOf, () => []);
    const [host, fromImage] = await Promise.all([packageManagerRegistryHosts(), imageRegistryHosts]);
    const project = (await readMetadata(workspacePaths(paths.workspacesDir, id).root)).projectRegistries ?? [];
    return [...new Set([...host, ...fromImage, ...project.filter((entry) => typeof entry === 'string')])];
  };
  const gateways = createGateways({
    runDir, session: () => sessionContext().name, model, credentials, budget, audit, sink, registryHosts,
    allowLoopbackUpstreams: options.env.CADRE_GATEWAY_ALLOW_LOOPBACK === '1',
    ...(mcp ? { mcp } : {}),
  });
  const editors = createEditorListeners();

  const backend = createLocalDockerBackend({
    docker, workspacesDir: paths.workspacesDir, runDir, installation, onEvent: sink,
    binds: [runnerBundleBind(await neutralCopy(runnerBundleDir(), neutral, 'runner')), editorVolumeBind(image), ...caBinds],
    bindsFor: (id) => gateways.binds(id),
  });
  const effects = createContainerEffects({
    backend, session: () => sessionContext().name, installation, image, onEvent: sink, command: forwarderCommand,
    envFor: (input) => {
      const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...proxies } = containerGatewayEnv({ provider: model?.provider.kind ?? 'anthropic', token: '' });
      return { ...input.env, ...proxies, ...caEnv, ...packageManagerEnv({ proxy: proxies.HTTPS_PROXY!, registry, caPath: caBundle ? containerCaPath : undefined }) };
    },
    onCleanedUp: (id) => gateways.close(id),
  });

  const poolEffects = createPoolEffects({ backend, sandboxSpec: effects.sandboxSpec });
  const pool = createPoolHost({ docker, runDir, image, root: options.root, defaults: options.defaults, ensureImage: () => ensureImage() });
  const actorOf = (id: string): AnyActorRef | undefined => {
    const actor = options.root().system.get(`container:${id}`);
    return actor?.getSnapshot().status === 'active' ? actor : undefined;
  };
  const contextOf = (id: string): ContainerContext | undefined => (actorOf(id)?.getSnapshot() as ContainerSnapshot | undefined)?.context;
  /** The containers this process holds: its container actors (it created or attached them; it has their claims and gateways). */
  const held = (): string[] =>
    Object.keys(options.root().getSnapshot().children).filter((key) => key.startsWith('container:')).map((key) => key.slice('container:'.length)).filter((id) => actorOf(id));
  const settled = (actor: AnyActorRef, states: string[]) =>
    waitFor(actor, (s: ContainerSnapshot) => s.status !== 'active' || states.some((state) => s.matches(state)), { timeout: Infinity }) as Promise<ContainerSnapshot>;
  const ours = (record: ContainerRecord): boolean => belongsTo(record, installation, paths.workspacesDir);

  async function ensureImage(): Promise<void> {
    if (image.startsWith(`${sandboxRepository}:`)) {
      if (!(await sandboxImagePresent(docker, image))) sink(say(`The sandbox image ${image} is not on this engine yet: building it now (first use only).`, 'warn'));
      await buildSandboxImage({ docker, onEvent: sink, version: options.version });
    } else if (!(await sandboxImagePresent(docker, image))) {
      throw new CadreError('vm.image-missing', `The configured sandbox image ${image} is not on this engine.`, { remedy: 'build it, or remove vm.image from the config to use cadre-sandbox (built by `cadre vm image build`)' });
    }
  }

  function attachedElsewhere(id: string, holder: Attachment): CadreError {
    return new CadreError('vm.attached-elsewhere', `${id} is in use by another cadre of this installation (pid ${holder.pid}, session "${holder.session}", since ${holder.since}).`, {
      remedy: 'use it from that cadre, or leave that cadre (Ctrl-D) and run the command here again',
    });
  }

  /** Stops the container actor (its gateway closes with it) and drops this process's claim; the container and workspace stay. */
  async function letGo(id: string): Promise<void> {
    options.root().send({ type: 'container.forget', containerId: id });
    await releaseAttachment(runDir, id).catch(() => undefined);
  }

  /** The container's settings as /vm-config shows them: its actor's env and network, the engine's limits, the time left. */
  function settingsOf(record: ContainerRecord): ContainerSettings {
    const context = contextOf(record.id);
    return {
      memoryBytes: record.limits.memoryBytes,
      cpus: record.limits.cpus,
      timeoutMinutes: Math.max(1, Math.round(((context?.deadline ?? record.deadline) - Date.now()) / 60_000)),
      env: { ...(context?.env ?? {}) },
      networkIsolation: context?.network.isolation ?? record.networkIsolation,
      allowedDomains: [...(context?.network.allowedDomains ?? record.allowedDomains)],
      services: [...(context?.services ?? [])],
    };
  }

  /** Spawns the container actor under the root and waits until it has settled into one of `states`. */
  async function spawnActor(input: ContainerInput, states: string[]): Promise<{ actor: AnyActorRef; snapshot: ContainerSnapshot }> {
    options.root().send({ type: 'container.spawn', input });
    const actor = options.root().system.get(`container:${input.containerId}`);
    if (!actor) throw new Error(`the container actor ${input.containerId} was not spawned`);
    return { actor, snapshot: await settled(actor, states) };
  }

  /**
   * Container `id`, held by this process: this installation's, claimed (no other live cadre holds it), a runner a dead cadre
   * left behind stopped, and a container actor attached (which opens its gateway with a fresh credential when it runs).
   * `action` says what the caller is about to do, for the refusal when the container is another installation's.
   */
  async function use(id: string, action: string): Promise<ContainerRecord> {
    const record = await findContainer(docker, id);
    if (!ours(record)) throw foreignContainer(record, action);
    if (actorOf(record.id)) return record;
    const claim = await claimAttachment(runDir, record.id, sessionContext().name);
    if (!claim.claimed) throw attachedElsewhere(record.id, claim.holder);
    try {
      const metadata = await readMetadata(record.workspace.root);
      await updateMetadata(record.workspace.root, { session: sessionContext().name });
      if (record.state.running) {
        const { stopRunners } = await import('../container/runners.js');
        const stopped = await stopRunners(docker.getContainer(record.dockerId), { graceMs: 1_000 });
        if (stopped > 0) {
          audit('vm-agent.runner-stopped', { containerId: record.id, runners: stopped, reason: 'left by a cadre process that is gone' });
          sink(say(`Stopped the vm-agent runner a previous cadre left running in ${record.id}; the workspace keeps what it did.`, 'warn'));
        }
      }
      const saved = isContainerSettings(metadata.settings) ? metadata.settings : undefined;
      const services = (await listServices({ docker, containerId: record.id, installation })).map((service) => service.name);
      await spawnActor({
        services,
        containerId: record.id, repoUrl: record.repoUrl, deadline: record.deadline, limits: machineLimits(record), dockerId: record.dockerId, workspace: record.workspace,
        env: saved?.env ?? {}, network: { isolation: saved?.networkIsolation ?? record.networkIsolation, allowedDomains: saved?.allowedDomains ?? record.allowedDomains },
      }, ['running.watching', 'stopped', 'timed-out', 'failed']);
      options.session().send({ type: 'container.registered', containerId: record.id });
      audit('container.attached', { containerId: record.id, running: record.state.running, ...(claim.previous ? { previousHolder: claim.previous.pid } : {}) });
      return record;
    } catch (error) {
      await letGo(record.id);
      throw error;
    }
  }

  /** /vm-create's container: a pool spare taken (`pooled`), or one created now; resolves once it runs with its gateway open. */
  async function createContainer(input: { repoUrl: string; limits: ContainerLimits; settings: ContainerSettings; pooled: PoolEntry | undefined }): Promise<{ id: string; repoUrl: string; deadline: number; settings: ContainerSettings; suggestion: ServiceSuggestion }> {
    const { repoUrl, limits, settings, pooled } = input;
    if (!pooled) await ensureImage();
    const id = pooled?.containerId ?? newContainerId([...(await listCadreContainers(docker)).map((record) => record.id), ...(await readdir(paths.workspacesDir).catch(() => []))]);
    const claim = await claimAttachment(runDir, id, sessionContext().name);
    if (!claim.claimed) throw attachedElsewhere(id, claim.holder);
    const deadline = Date.now() + limits.timeoutMinutes * 60_000;
    const { actor, snapshot } = await spawnActor({
      containerId: id, repoUrl, deadline, env: settings.env, services: settings.services ?? [], network: { isolation: settings.networkIsolation, allowedDomains: settings.allowedDomains },
      limits: { memoryBytes: limits.memoryBytes, nanoCpus: Math.round(limits.cpus * 1e9), pidsLimit: limits.pids, diskBytes: limits.diskBytes },
      ...(pooled ? { pooled: true, dockerId: pooled.dockerId, workspace: pooled.workspace, precloned: pooled.repository } : {}),
    }, ['running.watching', 'failed']);
    if (!snapshot.matches('running')) {
      const reason = snapshot.context.failure?.reason ?? 'it stopped before it was running';
      // Cadre's own fresh clone, with nothing of the person's in it: removed, with the container and its gateway folder.
      actor.send({ type: 'container.cleanup' });
      await settled(actor, ['cleaned-up']).catch(() => undefined);
      await letGo(id);
      throw new CadreError('vm.create-failed', `Cannot create a container from ${repoUrl}: ${reason}`, { remedy: startRemedy(repoUrl) });
    }
    await updateMetadata(workspacePaths(paths.workspacesDir, id).root, { session: sessionContext().name, settings: { ...settings } });
    options.session().send({ type: 'container.registered', containerId: id });
    audit('container.created', { containerId: id, repoUrl, deadline: new Date(deadline).toISOString(), memoryBytes: limits.memoryBytes, cpus: limits.cpus, image, services: settings.services ?? [], fromPool: pooled !== undefined });
    // What the repository's files say its tests need: only suggested, never started unasked.
    const suggestion = await detectServices(workspacePaths(paths.workspacesDir, id).dir);
    return { id, repoUrl, deadline, settings, suggestion };
  }

  return {
    docker,
    /** The sandbox backend the container effects run on. */
    backend,
    gateways,
    model,
    image,
    /** The /vm-editor listeners on 127.0.0.1, closed by restart and cleanup. */
    editors,
    effects,
    poolEffects,
    actorOf,
    settled,
    installation,
    /** The container's record from the engine's labels (any installation's: for reading only). */
    record: (id: string): Promise<ContainerRecord> => findContainer(docker, id),
    use,
    ours,
    /** The service containers of `record` (its own installation's, for reading: another installation's are only shown). */
    services: (record: ContainerRecord): Promise<ServiceRecord[]> =>
      listServices({ docker, containerId: record.id, installation: ours(record) ? installation : { id: record.installation, home: record.home } }),
    /** The hosts the gateway refused container `id` since `since`. */
    refusedSince: async (id: string, since: Date) => gateways.refusedSince(id, since),
    /** The variables of what runs in container `id` (commands, tasks): its /vm-config env. */
    envOf: (id: string): Record<string, string> => ({ ...(contextOf(id)?.env ?? {}) }),
    /** The runner's environment in container `id`: its env, the model through the forwarder, and the gateway's credential. */
    runnerEnv: (id: string): Record<string, string> => gateways.runnerEnv(id, contextOf(id)?.env ?? {}),
    /** The editor server in the shared editor volume (mounted at /opt/editor in every container), built on first use. */
    editor: () => ensureEditorVolume({ docker, image, onEvent: sink, registry, caBundle, env: options.env }),

    /** /vm-create: image on first use, workspace, clone, locked-down start with its gateway; resolves the short id once running. */
    async create(input: { repoUrl: string; configText?: string; cwd: string }): Promise<{ id: string; repoUrl: string; deadline: number; settings: ContainerSettings; suggestion: ServiceSuggestion }> {
      // An SSH URL is cloned by the host's git with the host's ssh agent or keys; a local checkout is cloned, never mounted.
      const { repositoryLocation } = await import('../git/repository-url.js');
      const repoUrl = repositoryLocation(input.repoUrl, input.cwd).url;
      const defaults = options.defaults();
      const limits = parseLimitsConfig(input.configText ?? '', { ...defaultLimits, memoryBytes: defaults.memoryBytes, cpus: defaults.cpus, timeoutMinutes: defaults.timeoutMinutes });
      const settings: ContainerSettings = { ...defaults, memoryBytes: limits.memoryBytes, cpus: limits.cpus, timeoutMinutes: limits.timeoutMinutes };
      // A spare of the warm pool fits when it was made with the same image, limits and env, and no services are asked.
      const pooled = (settings.services ?? []).length === 0
        ? await pool.take(poolFitKey({ image, memoryBytes: limits.memoryBytes, cpus: limits.cpus, pids: limits.pids, diskBytes: limits.diskBytes, env: settings.env }), repoUrl)
        : undefined;
      try {
        const created = await createContainer({ repoUrl, limits, settings, pooled });
        // Only a repository that cloned: a mistyped URL never becomes what the pool prepares spares for.
        pool.remember(repoUrl);
        return created;
      } finally {
        if (pooled) pool.settled();
      }
    },

    /** vm.warmPool, /vm-config --warm-pool: keeps `size` spares started for /vm-create. */
    warmPool: (size: number): Promise<void> => pool.resize(size),
    /** The defaults for new containers changed: spares made for the old ones are replaced. */
    defaultsChanged: (): void => pool.defaultsChanged(),
    /** At exit: removes the spares nobody took; taken ones are sessions' containers and stay. */
    drainPool: (): Promise<void> => pool.drain(),

    /**
     * /vm-config --container: the change goes to the container actor (env; network rules reach its gateway at once), the
     * engine (memory and cpu), and the deadline; it is kept beside the workspace for later cadre processes.
     */
    async configure(id: string, change: SettingsChange): Promise<{ record: ContainerRecord; settings: ContainerSettings; changed: (keyof ContainerSettings)[]; deadline: number; stopped: boolean }> {
      const record = await use(id, 'configure');
      const { settings, changed } = await applySettingsChange(settingsOf(record), change);
      if (changed.includes('services')) {
        throw new CadreError('vm.services-at-create', `${record.id}'s services are chosen when it is created: it runs ${settingsOf(record).services?.join(', ') || 'none'}.`, {
          remedy: `set them for new containers with /vm-config --services "${settings.services?.join(',') ?? ''}", then /vm-create ${record.repoUrl} (and /vm-cleanup ${record.id} when its work is saved)`,
          exitCode: exitCodes.usage,
        });
      }
      const actor = actorOf(record.id);
      if (changed.includes('memoryBytes') || changed.includes('cpus')) {
        await docker.getContainer(record.dockerId).update({ Memory: settings.memoryBytes, MemorySwap: settings.memoryBytes, NanoCpus: Math.round(settings.cpus * 1e9) });
      }
      let deadline = contextOf(record.id)?.deadline ?? record.deadline;
      if (changed.includes('timeoutMinutes')) {
        deadline = Date.now() + settings.timeoutMinutes * 60_000;
        await saveDeadline(record.workspace.root, deadline);
        // The container's own init follows the file (a timed-out container given more time must not stop itself at its start).
        await gateways.moveDeadline(record.id, deadline);
        actor?.send({ type: 'container.deadline.extended', deadline });
      }
      const network = { isolation: settings.networkIsolation, allowedDomains: settings.allowedDomains };
      if (changed.includes('env') || changed.includes('networkIsolation') || changed.includes('allowedDomains')) {
        actor?.send({ type: 'container.settings.changed', env: settings.env, network });
      }
      // The gateway takes new rules and a new deadline in place: reopened, calls in flight finishing on the old one.
      const gatewayChange = ['timeoutMinutes', 'networkIsolation', 'allowedDomains'].some((key) => changed.includes(key as keyof ContainerSettings));
      if (gatewayChange && gateways.isOpen(record.id)) await gateways.open(record.id, record.repoUrl, network, deadline);
      await updateMetadata(record.workspace.root, { settings: { ...settings } });
      const stopped = actor ? !(actor.getSnapshot() as ContainerSnapshot).matches('running') : !record.state.running;
      return { record, settings, changed, deadline, stopped };
    },

    /** /vm-restart: in place through the container machine; `editorClosed`: its /vm-editor listener was closed. */
    async restart(id: string): Promise<{ editorClosed: boolean }> {
      const record = await use(id, 'restart');
      const editorClosed = await editors.close(record.id);
      const actor = actorOf(record.id);
      if (!actor) throw new Error(`the container actor ${record.id} is not running`);
      let state = actor.getSnapshot() as ContainerSnapshot;
      // Given more time while its timed-out stop is still under way: it can start once that stop has finished.
      if (state.matches('timed-out.stopping') && state.context.deadline > Date.now()) state = await settled(actor, ['stopped', 'timed-out.stopped', 'failed']);
      if (state.matches('timed-out')) {
        throw new CadreError('vm.cannot-restart', `${id} passed its deadline (${new Date(state.context.deadline).toLocaleString()}); its workspace is kept.`, {
          remedy: `give it more time with /vm-config --container ${id} --timeout <minutes>, then /vm-restart ${id}`,
        });
      }
      if (state.matches('failed')) {
        throw new CadreError('vm.cannot-restart', `${id} failed (${state.context.failure?.reason ?? 'unknown cause'}); its workspace is kept until /vm-cleanup ${id}.`, {
          remedy: `create a new container with /vm-create ${record.repoUrl}, and remove this one with /vm-cleanup ${id} (/vm-create-pr ${id} keeps its work first)`,
        });
      }
      actor.send({ type: state.matches('stopped') ? 'container.start' : 'container.restart' });
      const after = await settled(actor, ['running.watching', 'failed']);
      if (!after.matches('running')) throw new CadreError('vm.restart-failed', `${id} did not come back: ${after.context.failure?.reason ?? 'unknown cause'}`, { remedy: startRemedy(record.repoUrl) });
      return { editorClosed };
    },

    /** /vm-cleanup: removes the container, its workspace and gateway, and revokes its token; a second run finds nothing and says so. */
    async cleanup(id: string): Promise<{ removed: boolean }> {
      const record = await findContainer(docker, id).catch((error: unknown) => {
        if (isCadreError(error) && error.code === 'container-not-found') return undefined;
        throw error;
      });
      if (record) await use(record.id, 'remove');
      else if (await pool.untakenSpare(id)) return { removed: false };
      const actor = actorOf(id);
      let removed = false;
      await editors.close(id);
      if (actor) {
        actor.send({ type: 'container.cleanup' });
        const after = await settled(actor, ['cleaned-up', 'failed']);
        if (after.status === 'active') throw new CadreError('vm.cleanup-failed', `Cannot clean up ${id}: ${after.context.failure?.reason ?? 'unknown cause'}`, { remedy: `run /vm-cleanup ${id} again; /system-status --container-runtime checks the engine` });
        removed = true;
      }
      // A workspace folder whose container is gone (removed outside cadre) is this installation's: removed with it.
      const leftover = await cleanUp({ docker, id, deleteWorkspace: true, workspace: record?.workspace ?? workspacePaths(paths.workspacesDir, id) });
      // Services whose container is gone (removed outside cadre): this installation's only, with their network and data.
      const services = await removeServices({ docker, containerId: id, installation });
      await gateways.close(id);
      await letGo(id);
      options.session().send({ type: 'container.removed', containerId: id });
      return { removed: removed || leftover.removedContainer || leftover.removedWorkspace || services.containers > 0 || services.network };
    },

    /** What /vm-cleanup would remove of `id`, and what its workspace holds that exists nowhere else. */
    async removal(id: string): Promise<{ record?: ContainerRecord; workspaceRoot: string; changes: WorkspaceChanges } | undefined> {
      const record = await findContainer(docker, id).catch(() => undefined);
      if (record && !ours(record)) throw foreignContainer(record, 'remove');
      const where = record?.workspace ?? workspacePaths(paths.workspacesDir, id);
      if (!record && (!(await exists(where.root)) || (await pool.untakenSpare(id)))) return undefined;
      return { ...(record ? { record } : {}), workspaceRoot: where.root, changes: await workspaceChanges(where.dir) };
    },

    /** /vm-status with no id: this installation's containers (and workspaces left without one), with what their workspaces hold. */
    async list(): Promise<ContainerList> {
      // Pool spares are nobody's containers yet: neither listed nor counted.
      const listed = await listCadreContainers(docker);
      const all = listed.filter((record) => !untakenPoolContainer(record));
      const mine = all.filter(ours);
      const now = Date.now();
      const containers = await Promise.all(mine.map(async (record): Promise<ContainerListing> => {
        const [claim, metadata, changes] = await Promise.all([readAttachment(runDir, record.id), readMetadata(record.workspace.root), workspaceChanges(record.workspace.dir, { timeoutMs: 5_000 })]);
        const heldBy = actorOf(record.id) ? 'this cadre' : claim && attachmentLive(claim) ? `cadre pid ${claim.pid}` : null;
        const state = record.state.running ? 'running' : record.deadline <= now ? 'timed-out' : record.state.status === 'exited' ? 'stopped' : record.state.status;
        return { id: record.id, state, session: metadata.session ?? record.session, repoUrl: record.repoUrl, deadline: new Date(record.deadline).toISOString(), heldBy, changes, workspace: record.workspace.dir };
      }));
      const known = new Set(listed.map((record) => record.id));
      const leftIds = (await readdir(paths.workspacesDir).catch(() => [])).filter((id) => isContainerId(id) && !known.has(id));
      const orphanWorkspaces = await Promise.all(leftIds.map(async (id) => {
        const { root, dir } = workspacePaths(paths.workspacesDir, id);
        return { id, workspace: dir, session: (await readMetadata(root)).session ?? null, changes: await workspaceChanges(dir, { timeoutMs: 5_000 }) };
      }));
      const spares = pool.context();
      return {
        containers: containers.sort((a, b) => a.id.localeCompare(b.id)), orphanWorkspaces, foreign: all.length - mine.length,
        pool: spares ? { size: spares.size, ready: spares.ready.length, lastError: spares.lastError } : null,
      };
    },

    /** Records `session` as the session of every container this process holds (after /save renamed it). */
    async noteSession(session: string): Promise<void> {
      await Promise.all(held().map((id) => updateMetadata(workspacePaths(paths.workspacesDir, id).root, { session }).catch(() => undefined)));
    },

    /** Lets go of every container this process holds: actors stopped (their gateways close), claims dropped; containers stay. */
    async closeAll(): Promise<void> {
      await editors.closeAll();
      for (const id of held()) options.root().send({ type: 'container.forget', containerId: id });
      await gateways.closeAll();
      await mcp?.close();
      closeBudget();
      await releaseMyClaims(runDir);
    },
  };
}

export type VmEngine = Awaited<ReturnType<typeof createVmEngine>>;
