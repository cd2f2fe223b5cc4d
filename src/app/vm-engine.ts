// The vm side of cadre, loaded on first use: the Docker client, credentials, the session's one token budget, gateways, container actors.
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor, type AnyActorRef } from 'xstate';
import type { ContainerContext } from '../../machines/container.machine.js';
import { runnerBundleBind } from '../agents/vm/bundle.js';
import { createDockerClient } from '../container/docker-client.js';
import { createContainerEffects } from '../container/effects.js';
import { editorVolumeBind, ensureEditorVolume } from '../container/editor/volume.js';
import { isContainerId, newContainerId } from '../container/labels.js';
import { attachmentLive, claimAttachment, readAttachment, releaseAttachment, type Attachment } from '../container/attachment.js';
import { cleanUp } from '../container/lifecycle.js';
import { readMetadata, updateMetadata } from '../container/metadata.js';
import { workspacePaths } from '../container/workspace.js';
import { workspaceChanges, type WorkspaceChanges } from '../git/workspace-changes.js';
import { loadInstallation } from '../store/installation.js';
import { defaultLimits, parseLimitsConfig } from '../container/limits.js';
import { belongsTo, findContainer, foreignContainer, listCadreContainers, type ContainerRecord } from '../container/records.js';
import { buildSandboxImage, sandboxImagePresent } from '../container/sandbox-image.js';
import { sandboxRepository } from '../container/sandbox-recipe.js';
import { CadreError, exitCodes, isCadreError } from '../errors.js';
import { createBudget } from '../gateway/budget.js';
import { containerGatewayEnv } from '../gateway/container-env.js';
import { openCredentials } from '../gateway/credentials.js';
import { say } from '../output.js';
import { createEditorListeners } from '../container/editor/publish.js';
import { containerCaPath, createGateways, gatewayModel, hostCaBundle, hostNpmRegistry } from '../gateway/pool.js';
import type { VmHostOptions } from './vm-host.js';
import type { ContainerSettings } from '../container/settings.js';

const forwarderCommand = ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'];
const startRemedy = (repoUrl: string) =>
  `check the runtime with /system-status --container-runtime, the repository with /test-connectivity ${repoUrl}, and free resources with /system-resources --available`;

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
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** The container machine's limits from a record of the engine. */
const machineLimits = (record: ContainerRecord) => ({ memoryBytes: record.limits.memoryBytes, nanoCpus: Math.round(record.limits.cpus * 1e9), pidsLimit: record.limits.pids, diskBytes: record.limits.diskBytes });

type ContainerSnapshot = { value: unknown; status: string; context: ContainerContext; matches(state: string): boolean };

export async function createVmEngine(options: VmHostOptions) {
  const { paths, config, sink, audit } = options;
  const docker = createDockerClient();
  const [credentials, installation] = await Promise.all([openCredentials({ keysDir: paths.keysDir }), loadInstallation(paths.dataDir)]);
  const runDir = join(paths.dataDir, 'run');
  /** The containers this process holds (it created or attached them; it has their claim and gateway). */
  const attached = new Set<string>();
  const sessionContext = () => options.session().getSnapshot().context as { name: string; budget: { limit: number; used: number } };
  const budget = createBudget({
    limit: Math.max(1, sessionContext().budget.limit - sessionContext().budget.used),
    onEvent: (event) => {
      // Every settled gateway call, whatever became of its task: the one source of the session's vm-agent usage.
      if (event.type === 'budget.charged') {
        options.session().send({ type: 'budget.used', tokens: event.input + event.output, inputTokens: event.input, outputTokens: event.output });
        return;
      }
      audit('budget.exhausted', { used: event.used, limit: event.limit });
      options.session().send({ type: 'budget.exhausted' });
    },
  });
  const model = gatewayModel(config, options.env);
  const [registry, caBundle] = await Promise.all([hostNpmRegistry(), hostCaBundle(options.env)]);
  const caBinds = caBundle ? [`${caBundle}:${containerCaPath}:ro`] : [];
  const caEnv: Record<string, string> = caBundle ? { NODE_EXTRA_CA_CERTS: containerCaPath, npm_config_cafile: containerCaPath, GIT_SSL_CAINFO: containerCaPath } : {};
  const gateways = createGateways({
    runDir, session: () => sessionContext().name, model, credentials, budget, audit, sink,
    allowLoopbackUpstreams: options.env.CADRE_GATEWAY_ALLOW_LOOPBACK === '1',
  });
  const image = config.vm.image === 'cadre-sandbox:latest' ? `${sandboxRepository}:${options.version}` : config.vm.image;
  const editors = createEditorListeners();

  const containerEnv = (settings: ContainerSettings): Record<string, string> => {
    const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...proxies } = containerGatewayEnv({ provider: model?.provider.kind ?? 'anthropic', token: '' });
    return { ...settings.env, ...proxies, ...caEnv, ...(registry ? { npm_config_registry: registry, YARN_REGISTRY: registry } : {}) };
  };

  const effects = createContainerEffects({
    docker, workspacesDir: paths.workspacesDir, session: () => sessionContext().name, installation, image, onEvent: sink, command: forwarderCommand, binds: [runnerBundleBind(), editorVolumeBind(image)],
    settingsFor: (id) => {
      const settings = options.settings.of(id);
      return { env: containerEnv(settings), networkIsolation: settings.networkIsolation, allowedDomains: settings.allowedDomains, timeoutMinutes: settings.timeoutMinutes, binds: [gateways.bind(id), ...caBinds] };
    },
    onCleanedUp: (id) => gateways.close(id),
  });

  const actorOf = (id: string): AnyActorRef | undefined => options.root().system.get(`container:${id}`);
  const settled = (actor: AnyActorRef, states: string[]) =>
    waitFor(actor, (s: ContainerSnapshot) => s.status !== 'active' || states.some((state) => s.matches(state)), { timeout: Infinity }) as Promise<ContainerSnapshot>;

  async function ensureImage(): Promise<void> {
    if (image.startsWith(`${sandboxRepository}:`)) {
      if (!(await sandboxImagePresent(docker, image))) sink(say(`The sandbox image ${image} is not on this engine yet: building it now (first use only).`, 'warn'));
      await buildSandboxImage({ docker, onEvent: sink, version: options.version });
    } else if (!(await sandboxImagePresent(docker, image))) {
      throw new CadreError('vm.image-missing', `The configured sandbox image ${image} is not on this engine.`, { remedy: 'build it, or remove vm.image from the config to use cadre-sandbox (built by `cadre vm image build`)' });
    }
  }

  /** Removes a container the machine could not bring up, with its workspace and gateway. */
  async function discard(id: string, actor: AnyActorRef): Promise<void> {
    actor.send({ type: 'container.cleanup' });
    await settled(actor, ['cleaned-up']).catch(() => undefined);
    options.root().send({ type: 'container.forget', containerId: id });
    await gateways.close(id);
    await letGo(id);
  }

  async function letGo(id: string): Promise<void> {
    attached.delete(id);
    await releaseAttachment(runDir, id).catch(() => undefined);
  }

  const ours = (record: ContainerRecord): boolean => belongsTo(record, installation, paths.workspacesDir);

  function attachedElsewhere(record: ContainerRecord, holder: Attachment): CadreError {
    return new CadreError('vm.attached-elsewhere', `${record.id} is in use by another cadre of this installation (pid ${holder.pid}, session "${holder.session}", since ${holder.since}).`, {
      remedy: `use it from that cadre, or leave that cadre (Ctrl-D) and run the command here again`,
    });
  }

  /**
   * Container `id`, held by this process: this installation's, claimed (no other live cadre holds it), its settings loaded,
   * a runner a dead cadre left behind stopped, its gateway open with a fresh credential, and a container actor attached.
   * `action` says what the caller is about to do, for the refusal when the container is another installation's.
   */
  async function use(id: string, action: string): Promise<ContainerRecord> {
    const record = await findContainer(docker, id);
    if (!ours(record)) throw foreignContainer(record, action);
    if (attached.has(record.id) && actorOf(record.id)) return record;
    const claim = await claimAttachment(runDir, record.id, sessionContext().name);
    if (!claim.claimed) throw attachedElsewhere(record, claim.holder);
    attached.add(record.id);
    try {
      await options.settings.load(record.id);
      await updateMetadata(record.workspace.root, { session: sessionContext().name });
      if (record.state.running) {
        const { stopRunners } = await import('../container/runners.js');
        const stopped = await stopRunners(docker.getContainer(record.dockerId), { graceMs: 1_000 });
        if (stopped > 0) {
          audit('vm-agent.runner-stopped', { containerId: record.id, runners: stopped, reason: 'left by a cadre process that is gone' });
          sink(say(`Stopped the vm-agent runner a previous cadre left running in ${record.id}; the workspace keeps what it did.`, 'warn'));
        }
        await gateways.open(record.id, record.repoUrl, options.settings.of(record.id), record.deadline);
      }
      if (!actorOf(record.id)) {
        options.root().send({ type: 'container.spawn', input: { containerId: record.id, repoUrl: record.repoUrl, deadline: record.deadline, limits: machineLimits(record), dockerId: record.dockerId } });
        const actor = actorOf(record.id);
        if (actor) await settled(actor, ['running', 'stopped', 'timed-out', 'failed']);
      }
      options.session().send({ type: 'container.registered', containerId: record.id });
      audit('container.attached', { containerId: record.id, running: record.state.running, ...(claim.previous ? { previousHolder: claim.previous.pid } : {}) });
      return record;
    } catch (error) {
      await gateways.close(record.id, { keepFolder: true }).catch(() => undefined);
      await letGo(record.id);
      throw error;
    }
  }

  return {
    docker,
    gateways,
    model,
    image,
    /** The /vm-editor listeners on 127.0.0.1, closed by restart and cleanup. */
    editors,
    effects,
    actorOf,
    settled,
    installation,
    /** The container's record from the engine's labels (any installation's: for reading only). */
    record: (id: string): Promise<ContainerRecord> => findContainer(docker, id),
    use,
    ours,
    /** The editor server in the shared editor volume (mounted at /opt/editor in every container), built on first use. */
    editor: () => ensureEditorVolume({ docker, image, onEvent: sink, registry, caBundle, env: options.env }),

    /** /vm-create: image on first use, workspace, clone, locked-down start with its gateway; resolves the short id once running. */
    async create(input: { repoUrl: string; configText?: string }): Promise<{ id: string; deadline: number; settings: ContainerSettings }> {
      const url = URL.canParse(input.repoUrl) ? new URL(input.repoUrl) : undefined;
      if (!url || !/^https?:$/.test(url.protocol)) {
        throw new CadreError('vm.bad-repo-url', `"${input.repoUrl}" is not an http(s) repository URL.`, { remedy: 'give the clone URL, like https://github.com/owner/repo.git', exitCode: exitCodes.usage });
      }
      const defaults = options.settings.defaults();
      const limits = parseLimitsConfig(input.configText ?? '', { ...defaultLimits, memoryBytes: defaults.memoryBytes, cpus: defaults.cpus, timeoutMinutes: defaults.timeoutMinutes });
      await ensureImage();
      const taken = [...(await listCadreContainers(docker)).map((record) => record.id), ...(await readdir(paths.workspacesDir).catch(() => []))];
      const id = newContainerId(taken);
      const claim = await claimAttachment(runDir, id, sessionContext().name);
      if (!claim.claimed) throw attachedElsewhere({ id } as ContainerRecord, claim.holder);
      attached.add(id);
      const settings: ContainerSettings = { ...defaults, memoryBytes: limits.memoryBytes, cpus: limits.cpus, timeoutMinutes: limits.timeoutMinutes };
      const deadline = Date.now() + limits.timeoutMinutes * 60_000;
      await gateways.open(id, input.repoUrl, settings, deadline);
      options.root().send({
        type: 'container.spawn',
        input: { containerId: id, repoUrl: input.repoUrl, deadline, limits: { memoryBytes: limits.memoryBytes, nanoCpus: Math.round(limits.cpus * 1e9), pidsLimit: limits.pids, diskBytes: limits.diskBytes } },
      });
      const actor = actorOf(id);
      if (!actor) throw new Error(`the container actor ${id} was not spawned`);
      const snapshot = await settled(actor, ['running', 'failed']);
      if (!snapshot.matches('running')) {
        const reason = snapshot.context.failure?.reason ?? 'it stopped before it was running';
        await discard(id, actor);
        throw new CadreError('vm.create-failed', `Cannot create a container from ${input.repoUrl}: ${reason}`, { remedy: startRemedy(input.repoUrl) });
      }
      await options.settings.set(id, settings);
      await updateMetadata(workspacePaths(paths.workspacesDir, id).root, { session: sessionContext().name });
      options.session().send({ type: 'container.registered', containerId: id });
      audit('container.created', { containerId: id, repoUrl: input.repoUrl, deadline: new Date(deadline).toISOString(), memoryBytes: limits.memoryBytes, cpus: limits.cpus, image });
      return { id, deadline, settings };
    },

    /** /vm-restart: in place through the container machine (or the engine, for a container of an earlier cadre run); `editorClosed`: its /vm-editor listener was closed. */
    async restart(id: string): Promise<{ editorClosed: boolean }> {
      const record = await use(id, 'restart');
      const editorClosed = await editors.close(record.id);
      const actor = actorOf(record.id);
      if (!actor) throw new Error(`the container actor ${record.id} is not running`);
      const state = (actor.getSnapshot() as ContainerSnapshot);
      if (state.matches('timed-out') || state.matches('failed')) {
        throw new CadreError('vm.cannot-restart', `${id} ${state.matches('timed-out') ? 'passed its deadline' : `failed (${state.context.failure?.reason ?? 'unknown cause'})`}; its workspace is kept until /vm-cleanup ${id}.`, {
          remedy: `create a new container with /vm-create ${record.repoUrl} (raise the timeout first with /vm-config --timeout <minutes>), and remove this one with /vm-cleanup ${id}`,
        });
      }
      await gateways.open(record.id, record.repoUrl, options.settings.of(record.id), record.deadline);
      actor.send({ type: state.matches('stopped') ? 'container.start' : 'container.restart' });
      const after = await settled(actor, ['running', 'failed']);
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
      const actor = actorOf(id);
      let removed = false;
      await editors.close(id);
      if (actor && actor.getSnapshot().status === 'active') {
        actor.send({ type: 'container.cleanup' });
        const after = await settled(actor, ['cleaned-up', 'failed']);
        if (after.status === 'active') throw new CadreError('vm.cleanup-failed', `Cannot clean up ${id}: ${after.context.failure?.reason ?? 'unknown cause'}`, { remedy: `run /vm-cleanup ${id} again; /system-status --container-runtime checks the engine` });
        options.root().send({ type: 'container.forget', containerId: id });
        removed = true;
      }
      // A workspace folder whose container is gone (removed outside cadre) is this installation's: removed with it.
      const leftover = await cleanUp({ docker, id, deleteWorkspace: true, workspace: record?.workspace ?? workspacePaths(paths.workspacesDir, id) });
      await gateways.close(id);
      await letGo(id);
      options.session().send({ type: 'container.removed', containerId: id });
      options.settings.forget(id);
      return { removed: removed || leftover.removedContainer || leftover.removedWorkspace };
    },

    /** What /vm-cleanup would remove of `id`, and what its workspace holds that exists nowhere else. */
    async removal(id: string): Promise<{ record?: ContainerRecord; workspaceRoot: string; changes: WorkspaceChanges } | undefined> {
      const record = await findContainer(docker, id).catch(() => undefined);
      if (record && !ours(record)) throw foreignContainer(record, 'remove');
      const paths_ = record?.workspace ?? workspacePaths(paths.workspacesDir, id);
      if (!record && !(await exists(paths_.root))) return undefined;
      return { ...(record ? { record } : {}), workspaceRoot: paths_.root, changes: await workspaceChanges(paths_.dir) };
    },

    /** /vm-status with no id: this installation's containers (and workspaces left without one), with what their workspaces hold. */
    async list(): Promise<ContainerList> {
      const all = await listCadreContainers(docker);
      const mine = all.filter(ours);
      const now = Date.now();
      const containers = await Promise.all(mine.map(async (record): Promise<ContainerListing> => {
        const [claim, metadata, changes] = await Promise.all([readAttachment(runDir, record.id), readMetadata(record.workspace.root), workspaceChanges(record.workspace.dir, { timeoutMs: 5_000 })]);
        const heldBy = attached.has(record.id) ? 'this cadre' : claim && attachmentLive(claim) ? `cadre pid ${claim.pid}` : null;
        const state = record.state.running ? 'running' : record.deadline <= now ? 'timed-out' : record.state.status === 'exited' ? 'stopped' : record.state.status;
        return { id: record.id, state, session: metadata.session ?? record.session, repoUrl: record.repoUrl, deadline: new Date(record.deadline).toISOString(), heldBy, changes, workspace: record.workspace.dir };
      }));
      const known = new Set(all.map((record) => record.id));
      const leftIds = (await readdir(paths.workspacesDir).catch(() => [])).filter((id) => isContainerId(id) && !known.has(id));
      const orphanWorkspaces = await Promise.all(leftIds.map(async (id) => {
        const { root, dir } = workspacePaths(paths.workspacesDir, id);
        return { id, workspace: dir, session: (await readMetadata(root)).session ?? null, changes: await workspaceChanges(dir, { timeoutMs: 5_000 }) };
      }));
      return { containers: containers.sort((a, b) => a.id.localeCompare(b.id)), orphanWorkspaces, foreign: all.length - mine.length };
    },

    /** Records `session` as the session of every container this process holds (after /save renamed it). */
    async noteSession(session: string): Promise<void> {
      await Promise.all([...attached].map((id) => updateMetadata(workspacePaths(paths.workspacesDir, id).root, { session }).catch(() => undefined)));
    },

    /** Lets go of every container this process holds: gateways closed, claims dropped; containers and workspaces stay. */
    async closeAll(): Promise<void> {
      await editors.closeAll();
      await gateways.closeAll();
      await Promise.all([...attached].map((id) => letGo(id)));
    },
  };
}

export type VmEngine = Awaited<ReturnType<typeof createVmEngine>>;
