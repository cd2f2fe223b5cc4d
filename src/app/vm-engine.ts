// The vm side of cadre, loaded on first use: the Docker client, credentials, the session's budget, the gateway pool, and the
// containers this process holds (vm-containers.ts), wired once. Containers belong to their installation and outlive it.
import { join } from 'node:path';
import { runnerBundleDir } from '../container/runner-bundle.js';
import { releaseMyClaims } from '../container/attachment.js';
import { createDockerClient, engineEndpointOf } from '../container/docker-client.js';
import { createDockerBackend } from '../container/backends/docker-backend.js';
import { openExecStream } from '../container/exec-stream.js';
import { ensureRunnerImage, runnerBundleHash, runnerImageName } from '../container/runner-image.js';
import { createContainerEffects } from '../container/effects.js';
import { createVmBudget } from './vm-budget.js';
import { createEditorListeners } from '../container/editor/publish.js';
import { ensureEditorVolume } from '../container/editor/volume.js';
import { ensureRemoteEditorVolume } from '../container/editor/ship.js';
import { linkRunFolder, neutralFolder } from '../container/neutral-folder.js';
import { readMetadata } from '../container/metadata.js';
import { createPoolEffects } from '../container/pool.js';
import { createPoolHost } from './vm-pool-host.js';
import type { ContainerRecord } from '../container/records.js';
import { buildSandboxImage, imageRegistries, sandboxImagePresent } from '../container/sandbox-image.js';
import { sandboxImageName, sandboxRepository } from '../container/sandbox-recipe.js';
import type { SandboxBackend } from '../container/backend.js';
import type { ContainerSettings } from '../container/settings.js';
import { listServices, type ServiceRecord } from '../container/services/runtime.js';
import { workspacePaths } from '../container/workspace.js';
import { CadreError } from '../errors.js';
import { containerGatewayEnv } from '../gateway/container-env.js';
import { openCredentials } from '../gateway/credentials.js';
import { packageManagerRegistryHosts, registryHostsOf } from '../gateway/registries.js';
import { packageManagerEnv } from '../container/package-manager-env.js';
import { containerCaPath, createGateways, gatewayModel, hostCaBundle, hostNpmRegistry } from '../gateway/pool.js';
import { createContainerMcp } from '../mcp/for-containers.js';
import { say, type OutputSink } from '../output.js';
import type { Config } from '../store/config-schema.js';
import { loadInstallation, type Installation } from '../store/installation.js';
import type { CadrePaths } from '../store/paths.js';
import type { RootRef, SessionRef } from './actors.js';
import { createApplySettings } from './vm-reconfigure.js';
import { createVmContainers } from './vm-containers.js';

export type { ContainerList, ContainerListing } from './vm-containers.js';

const forwarderCommand = ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'];

/** What the vm side is built from (vm-host passes it on to the engine it loads). */
/**
 * Sandboxes on a backend of the caller's choosing instead of the Docker engine of vm.engine (one kept in memory runs the whole
 * vm composition without an engine): the backend, the image it makes them from, and what that image needs.
 */
export interface SandboxesChoice {
  backend(context: { installation: Installation; workspacesDir: string; runDir: string; onEvent: OutputSink }): SandboxBackend;
  image: string;
  /** The image there, ready to create from (built or checked on first use). */
  ensureImage(): Promise<void>;
  /** The package registries the image's own package managers are set to. */
  imageRegistryHosts(): Promise<string[]>;
}

export interface VmSideOptions {
  paths: CadrePaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  version: string;
  /** The root actor (container actors are its children). */
  root: () => RootRef;
  session: () => SessionRef;
  /** Where sandboxes run: the Docker engine of vm.engine unless given. */
  sandboxes?: SandboxesChoice;
}

export interface VmEngineOptions extends VmSideOptions {
  /** /vm-config's defaults for new containers. */
  defaults: () => ContainerSettings;
}

type Docker = ReturnType<typeof createDockerClient>;

/** The sandbox image on the engine: cadre-sandbox built on first use, a configured one required. */
async function ensureImage(docker: Docker, image: string, sink: OutputSink, version: string): Promise<void> {
  if (image.startsWith(`${sandboxRepository}:`)) {
    if (!(await sandboxImagePresent(docker, image))) sink(say(`The sandbox image ${image} is not on this engine yet: building it now (first use only).`, 'warn'));
    await buildSandboxImage({ docker, onEvent: sink, version });
  } else if (!(await sandboxImagePresent(docker, image))) {
    throw new CadreError('vm.image-missing', `The configured sandbox image ${image} is not on this engine.`, { remedy: 'build it, or remove vm.image from the config to use cadre-sandbox (built by `cadre vm image build`)' });
  }
}

/** The gateway pool with what it needs: credentials, the session's budget, the model, the registries and the host's CA. */
async function createVmGateways(options: VmEngineOptions, docker: Docker, installation: Installation, image: string, remote: boolean, caBundle: string | undefined) {
  // (remote: the host's CA is baked into the image's runner layer instead of bound; see runner-image.ts.)
  const { paths, config, sink, audit } = options;
  const runDir = join(paths.dataDir, 'run');
  // What is bound into a container comes from a folder whose path names neither this install nor the cadre home (mountinfo shows it).
  const neutral = await neutralFolder(installation);
  await linkRunFolder(runDir, neutral);
  const credentials = await openCredentials({ keysDir: paths.keysDir });
  const { budget, close: closeBudget } = await createVmBudget({ dataDir: paths.dataDir, session: options.session, audit, sink });
  const model = gatewayModel(config, options.env);
  const caEnv: Record<string, string> = caBundle ? { NODE_EXTRA_CA_CERTS: containerCaPath, npm_config_cafile: containerCaPath, GIT_SSL_CAINFO: containerCaPath } : {};
  // MCP servers configured for containers run here, on the host, once for every container this process holds.
  const mcp = createContainerMcp({ servers: config.mcp.servers, cwd: paths.projectDir, sink, version: options.version });
  // The image's package managers' defaults are read once (the image is fixed for this process); the host's npm and yarn
  // configuration is asked through host-package-config, which asks again only when that configuration changes.
  const imageRegistryHosts = (() => {
    let hosts: Promise<string[]> | undefined;
    return () => (hosts ??= (options.sandboxes ? options.sandboxes.imageRegistryHosts() : imageRegistries(docker, image).then(registryHostsOf)).catch(() => []));
  })();
  const registryHosts = async (id: string): Promise<string[]> => {
    const [host, fromImage] = await Promise.all([packageManagerRegistryHosts(), imageRegistryHosts()]);
    const project = (await readMetadata(workspacePaths(paths.workspacesDir, id).root)).projectRegistries ?? [];
    return [...new Set([...host, ...fromImage, ...project.filter((entry) => typeof entry === 'string')])];
  };
  const gateways = createGateways({
    runDir, session: () => options.session().getSnapshot().context.name, model, credentials, budget, audit, sink, registryHosts,
    allowLoopbackUpstreams: options.env.CADRE_GATEWAY_ALLOW_LOOPBACK === '1',
    ...(mcp ? { mcp } : {}),
    // A remote engine shares no files: the sandbox reaches its gateway through a stream opened into it (the exec tunnel).
    ...(remote ? { reach: { kind: 'tunnel' as const, openStream: (id: string, cmd: string[]) => openExecStream(docker, `cadre-${id}`, cmd) } } : {}),
  });
  return { gateways, runDir, neutral, model, caBundle, caEnv, mcp, closeBudget };
}

export async function createVmEngine(options: VmEngineOptions) {
  const { paths, sink, audit } = options;
  const docker = createDockerClient({ engine: options.config.vm.engine });
  const installation = await loadInstallation(paths.dataDir);
  // An engine reached over tcp or ssh shares no files with this process: workspaces are volumes there, the runner is in the image.
  const remote = !options.sandboxes && engineEndpointOf(docker).transport !== 'unix';
  const baseImage = options.config.vm.image === 'cadre-sandbox:latest' ? sandboxImageName(options.version) : options.config.vm.image;
  // There, the runner and the host's extra CA bundle are baked into a layer of the image (a bind cannot reach them).
  // The host's npm registry and extra CA bundle, asked once: the gateways, the image name and the runner layer all use them.
  const [registry, hostCa] = await Promise.all([hostNpmRegistry(), hostCaBundle(options.env)]);
  const bundleHash = remote ? await runnerBundleHash(runnerBundleDir(), hostCa) : undefined;
  const image = options.sandboxes?.image ?? (bundleHash ? runnerImageName(baseImage, bundleHash) : baseImage);
  const { gateways, runDir, neutral, model, caBundle, caEnv, mcp, closeBudget } = await createVmGateways(options, docker, installation, image, remote, hostCa);
  const sessionContext = () => options.session().getSnapshot().context;
  const editors = createEditorListeners();

  const backend = options.sandboxes
    ? options.sandboxes.backend({ installation, workspacesDir: paths.workspacesDir, runDir, onEvent: sink })
    : await createDockerBackend({ docker, remote, workspacesDir: paths.workspacesDir, runDir, installation, image, onEvent: sink, neutral, caBundle, bindsFor: (id) => gateways.binds(id) });
  const effects = createContainerEffects({
    // Through the tunnel the forwarder runs in an exec of its own; the sandbox's main process only idles.
    backend, session: () => sessionContext().name, installation, image, onEvent: sink, ...(remote ? {} : { command: forwarderCommand }),
    envFor: (input) => {
      const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...proxies } = containerGatewayEnv({ provider: model?.provider.kind ?? 'anthropic', token: '' });
      return { ...input.env, ...proxies, ...caEnv, ...packageManagerEnv({ proxy: proxies.HTTPS_PROXY!, registry, caPath: caBundle ? containerCaPath : undefined }) };
    },
    onCleanedUp: (id) => gateways.removeFolder(id),
  });

  const poolEffects = createPoolEffects({ backend, sandboxSpec: effects.sandboxSpec });
  const imageReady = options.sandboxes?.ensureImage ?? (async (): Promise<void> => {
    await ensureImage(docker, baseImage, sink, options.version);
    if (remote) await ensureRunnerImage({ docker, sandboxImage: baseImage, bundleDir: runnerBundleDir(), onEvent: sink, ...(hostCa ? { caBundle: hostCa } : {}), ...(bundleHash ? { bundleHash } : {}) });
  });
  const pool = createPoolHost({ docker, backend, runDir, image, root: options.root, defaults: options.defaults, ensureImage: imageReady });
  const containers = createVmContainers({
    docker, paths, installation, runDir, image, sink, audit, root: options.root, session: options.session, gateways, backend, editors, pool, defaults: options.defaults, ensureImage: imageReady,
  });
  const envOf = (id: string): Record<string, string> => ({ ...(containers.actorOf(id)?.getSnapshot().context.env ?? {}) });

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
    /** The container machine's reconfigure effect (engine limits, deadline files). */
    applySettings: createApplySettings({ backend, gateways }),
    installation,
    ...containers,
    /** The container's record from the engine's labels (any installation's: for reading only). */
    record: (id: string): Promise<ContainerRecord> => backend.find(id),
    /** The service containers of `record` (its own installation's, for reading: another installation's are only shown). */
    services: (record: ContainerRecord): Promise<ServiceRecord[]> =>
      listServices({ docker, containerId: record.id, installation: containers.ours(record) ? installation : { id: record.installation, home: record.home } }),
    /** The hosts the gateway refused container `id` since `since`. */
    refusedSince: async (id: string, since: Date) => gateways.refusedSince(id, since),
    /** The variables of what runs in container `id` (commands, tasks): its /vm-config env. */
    envOf,
    /** The runner's environment in container `id`: its env, the model through the forwarder, and the gateway's credential. */
    runnerEnv: (id: string): Record<string, string> => gateways.runnerEnv(id, envOf(id)),
    /** The editor server in the shared editor volume (mounted at /opt/editor in every container), built on first use (here, and shipped to an engine elsewhere). */
    editor: () => (remote ? ensureRemoteEditorVolume : ensureEditorVolume)({ docker, image, baseImage, onEvent: sink, registry, caBundle, env: options.env }),
    /** vm.warmPool, /vm-config --warm-pool: keeps `size` spares started for /vm-create. */
    warmPool: (size: number): Promise<void> => pool.resize(size),
    /** The defaults for new containers changed: spares made for the old ones are replaced. */
    defaultsChanged: (): void => pool.defaultsChanged(),
    /** At exit: removes the spares nobody took; taken ones are sessions' containers and stay. */
    drainPool: (): Promise<void> => pool.drain(),

    /** Lets go of every container this process holds: actors stopped (their gateway children close the gateways), claims dropped; containers stay. */
    async closeAll(): Promise<void> {
      await editors.closeAll();
      containers.forgetAll();
      await gateways.drained();
      await mcp?.close();
      closeBudget();
      await releaseMyClaims(runDir);
    },
  };
}

export type VmEngine = Awaited<ReturnType<typeof createVmEngine>>;
