// The vm side of cadre, loaded on first use: the Docker client, credentials, the session's one token budget, gateways, container actors.
import { join } from 'node:path';
import { waitFor, type AnyActorRef } from 'xstate';
import type { ContainerContext } from '../../machines/container.machine.js';
import { runnerBundleBind } from '../agents/vm/bundle.js';
import { createDockerClient } from '../container/docker-client.js';
import { createContainerEffects } from '../container/effects.js';
import { editorVolumeBind, ensureEditorVolume } from '../container/editor-volume.js';
import { newContainerId } from '../container/labels.js';
import { cleanUp, restartContainer } from '../container/lifecycle.js';
import { defaultLimits, parseLimitsConfig } from '../container/limits.js';
import { findContainer, listCadreContainers, type ContainerRecord } from '../container/records.js';
import { buildSandboxImage, sandboxImagePresent } from '../container/sandbox-image.js';
import { sandboxRepository } from '../container/sandbox-recipe.js';
import { CadreError, exitCodes } from '../errors.js';
import { createBudget } from '../gateway/budget.js';
import { containerGatewayEnv } from '../gateway/container-env.js';
import { openCredentials } from '../gateway/credentials.js';
import { say } from './output.js';
import { createEditorListeners } from './vm-editor-publish.js';
import { containerCaPath, createGateways, gatewayModel, hostCaBundle, hostNpmRegistry } from './vm-gateways.js';
import type { VmHostOptions } from './vm-host.js';
import type { ContainerSettings } from './vm-settings.js';

const forwarderCommand = ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'];
const startRemedy = (repoUrl: string) =>
  `check the runtime with /system-status --container-runtime, the repository with /test-connectivity ${repoUrl}, and free resources with /system-resources --available`;

type ContainerSnapshot = { value: unknown; status: string; context: ContainerContext; matches(state: string): boolean };

export async function createVmEngine(options: VmHostOptions) {
  const { paths, config, sink, audit } = options;
  const docker = createDockerClient();
  const credentials = await openCredentials({ keysDir: paths.keysDir });
  const sessionContext = () => options.session().getSnapshot().context as { name: string; budget: { limit: number; used: number } };
  let charged = 0;
  const budget = createBudget({
    limit: Math.max(1, sessionContext().budget.limit - sessionContext().budget.used),
    onEvent: (event) => {
      if (event.type === 'budget.updated') {
        options.session().send({ type: 'budget.used', tokens: event.used - charged });
        charged = event.used;
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
    runDir: join(paths.dataDir, 'run'), session: () => sessionContext().name, model, credentials, budget, audit, sink,
    allowLoopbackUpstreams: options.env.CADRE_GATEWAY_ALLOW_LOOPBACK === '1',
  });
  const image = config.vm.image === 'cadre-sandbox:latest' ? `${sandboxRepository}:${options.version}` : config.vm.image;
  const repoUrls = new Map<string, string>();
  const editors = createEditorListeners();

  const containerEnv = (settings: ContainerSettings): Record<string, string> => {
    const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...proxies } = containerGatewayEnv({ provider: model?.provider.kind ?? 'anthropic', token: '' });
    return { ...settings.env, ...proxies, ...caEnv, ...(registry ? { npm_config_registry: registry, YARN_REGISTRY: registry } : {}) };
  };

  const effects = createContainerEffects({
    docker, workspacesDir: paths.workspacesDir, session: sessionContext().name, image, onEvent: sink, command: forwarderCommand, binds: [runnerBundleBind(), editorVolumeBind(image)],
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
    /** The container's record from the engine's labels (any cadre process's container). */
    record: (id: string): Promise<ContainerRecord> => findContainer(docker, id),
    repoUrlOf: (id: string) => repoUrls.get(id),
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
      const id = newContainerId((await listCadreContainers(docker)).map((record) => record.id));
      const settings: ContainerSettings = { ...defaults, memoryBytes: limits.memoryBytes, cpus: limits.cpus, timeoutMinutes: limits.timeoutMinutes };
      options.settings.set(id, settings);
      repoUrls.set(id, input.repoUrl);
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
      options.session().send({ type: 'container.registered', containerId: id });
      audit('container.created', { containerId: id, repoUrl: input.repoUrl, deadline: new Date(deadline).toISOString(), memoryBytes: limits.memoryBytes, cpus: limits.cpus, image });
      return { id, deadline, settings };
    },

    /** /vm-restart: in place through the container machine (or the engine, for a container of an earlier cadre run); `editorClosed`: its /vm-editor listener was closed. */
    async restart(id: string): Promise<{ editorClosed: boolean }> {
      const record = await findContainer(docker, id);
      const editorClosed = await editors.close(id);
      await gateways.open(id, record.repoUrl, options.settings.of(id), record.deadline);
      const actor = actorOf(id);
      if (!actor) return restartContainer({ docker, dockerId: record.dockerId }).then(() => ({ editorClosed }));
      const state = (actor.getSnapshot() as ContainerSnapshot);
      if (state.matches('timed-out') || state.matches('failed')) {
        throw new CadreError('vm.cannot-restart', `${id} ${state.matches('timed-out') ? 'passed its deadline' : `failed (${state.context.failure?.reason ?? 'unknown cause'})`}; its workspace is kept until /vm-cleanup ${id}.`, {
          remedy: `create a new container with /vm-create ${record.repoUrl} (raise the timeout first with /vm-config --timeout <minutes>), and remove this one with /vm-cleanup ${id}`,
        });
      }
      actor.send({ type: state.matches('stopped') ? 'container.start' : 'container.restart' });
      const after = await settled(actor, ['running', 'failed']);
      if (!after.matches('running')) throw new CadreError('vm.restart-failed', `${id} did not come back: ${after.context.failure?.reason ?? 'unknown cause'}`, { remedy: startRemedy(record.repoUrl) });
      return { editorClosed };
    },

    /** /vm-cleanup: removes the container, its workspace and gateway, and revokes its token; a second run finds nothing and says so. */
    async cleanup(id: string): Promise<{ removed: boolean }> {
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
      const leftover = await cleanUp({ docker, id, deleteWorkspace: true });
      await gateways.close(id);
      options.session().send({ type: 'container.removed', containerId: id });
      options.settings.forget(id);
      return { removed: removed || leftover.removedContainer || leftover.removedWorkspace };
    },

    async closeAll(): Promise<void> {
      await editors.closeAll();
      await gateways.closeAll();
    },
  };
}

export type VmEngine = Awaited<ReturnType<typeof createVmEngine>>;
