// One gateway per container in the cadre process: its socket folder (mounted at /run/cadre), its session JWT, and the runner's environment.
import { access, constants, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { writeDeadlineFile } from '../container/init.js';
import { sandboxUser } from '../container/workspace.js';
import type { RefusedHost } from '../container/install-failure.js';
import { CadreError } from '../errors.js';
import type { Budget } from './budget.js';
import { containerGatewayEnv, containerMcpEnv } from './container-env.js';
import type { ContainerMcp } from '../mcp/for-containers.js';
import { packageManagerSetting } from './host-package-config.js';
import type { Credentials } from './credentials.js';
import type { ProviderConfig } from './providers.js';
import { startGateway, type Gateway } from './server.js';
import { restrictSocketFolder } from './socket-folder.js';
import { keepTunnel, tunnelForwarderCommand, type TunnelKeeper } from './tunnel-keeper.js';
import { modelSetupHint, resolveModel } from '../model/resolve.js';
import type { Config } from '../store/config-schema.js';
import { say, type OutputSink } from '../output.js';
import { repositoryHost } from '../git/repository-url.js';
// The forwarder's module is dependency-free (it runs on the container's own Node); the socket's place is named there.
import { containerGatewaySocket } from '../runner/forwarder.js';

/** The model the gateway forwards to (with the real key, which stays on the host) and the name the runner asks for. */
export interface GatewayModel {
  provider: ProviderConfig;
  model: string;
}

interface OpenGateway {
  gateway: Gateway;
  token: string;
  jti: string;
  exp: number;
}

const upstreamDefaults = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com/v1' } as const;

/** The configured model as the gateway's upstream; null when only the offline engine is configured. */
export function gatewayModel(config: Config, env: NodeJS.ProcessEnv): GatewayModel | null {
  const resolved = resolveModel(config.model, env);
  if (resolved.provider === 'offline') return null;
  const baseUrl = resolved.baseUrl ?? (resolved.provider === 'openai-compatible' ? '' : upstreamDefaults[resolved.provider]);
  return { provider: { kind: resolved.provider, baseUrl, apiKey: resolved.apiKey ?? '' }, model: resolved.model };
}

/** The registry npm is configured with on the host, so that npm in the container asks the one the egress allowlist names. */
export async function hostNpmRegistry(): Promise<string | undefined> {
  const registry = await packageManagerSetting('npm', ['config', 'get', 'registry']);
  return /^https?:\/\//.test(registry) ? registry : undefined;
}

/** Where the host's trusted CA bundle for package managers is: npm's `cafile`, else NODE_EXTRA_CA_CERTS; undefined when unset or unreadable. */
export async function hostCaBundle(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const cafile = await packageManagerSetting('npm', ['config', 'get', 'cafile']);
  for (const candidate of [cafile, env.NODE_EXTRA_CA_CERTS?.trim() ?? '']) {
    if (!candidate.startsWith('/')) continue;
    const readable = await access(candidate, constants.R_OK).then(() => true, () => false);
    if (readable) return candidate;
  }
  return undefined;
}

/** The in-container path of the host's CA bundle (mounted read-only), so TLS through a proxy with its own CA works as on the host. */
export const containerCaPath = '/etc/cadre/host-ca.crt';

/** What a container may reach through its gateway's egress. */
export interface GatewayNetwork {
  isolation: boolean;
  allowedDomains: string[];
}

/**
 * How a sandbox reaches its gateway: the socket's folder bind-mounted at /run/cadre (the engine shares cadre's files), or
 * a tunnel over a stream cadre opens into the sandbox through the engine's API (a remote engine: nothing is shared). With
 * the tunnel the container's main process must not be the socket forwarder, which would hold the forwarder's ports.
 */
export type GatewayReach =
  | { kind: 'socket-bind' }
  | { kind: 'tunnel'; openStream(id: string, cmd: string[]): Promise<Duplex> };

export interface GatewaysOptions {
  runDir: string;
  session: () => string;
  model: GatewayModel | null;
  credentials: Credentials;
  budget: Budget;
  audit: (type: string, data: Record<string, unknown>) => void;
  sink: OutputSink;
  /** Lets egress reach loopback upstreams (CADRE_GATEWAY_ALLOW_LOOPBACK=1, for tests with local servers); announced loudly. */
  allowLoopbackUpstreams: boolean;
  /** The host's MCP servers offered to containers, shared by every gateway of this process. */
  mcp?: ContainerMcp;
  /** The package registries container `id` may reach: the host's configuration, the image's package managers, the project's own files. */
  registryHosts: (id: string) => Promise<string[]>;
  /** How sandboxes reach their gateway; the socket bind unless said otherwise. */
  reach?: GatewayReach;
}

export function createGateways(options: GatewaysOptions) {
  const open = new Map<string, OpenGateway>();
  const reach = options.reach ?? { kind: 'socket-bind' };
  const tunnels = new Map<string, TunnelKeeper>();
  const stopTunnel = async (id: string): Promise<void> => {
    const keeper = tunnels.get(id);
    tunnels.delete(id);
    await keeper?.stop();
  };
  // One operation at a time per container, in the order asked: a close (or the removal of the folder) never overlaps an open.
  const queues = new Map<string, Promise<unknown>>();
  const serially = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(id) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(id, settled);
    void settled.then(() => {
      if (queues.get(id) === settled) queues.delete(id);
    });
    return next;
  };
  const socketDir = (id: string): string => join(options.runDir, id);
  // The latest egress refusals of each container, so a failed install can name the host it was refused.
  const refusals = new Map<string, Array<RefusedHost & { at: number }>>();
  const noteRefusal = (id: string, data: Record<string, unknown>): void => {
    const list = refusals.get(id) ?? [];
    list.push({ at: Date.now(), host: String(data.host ?? ''), port: Number(data.port ?? 0), rule: String(data.rule ?? ''), reason: String(data.reason ?? '') });
    refusals.set(id, list.slice(-50));
  };

  async function start(id: string, repoUrl: string, network: GatewayNetwork, token: Omit<OpenGateway, 'gateway'>): Promise<OpenGateway> {
    const dir = socketDir(id);
    await mkdir(dir, { recursive: true });
    // The container's user (uid 1000) must reach the socket; it can list and create nothing here, and no other user gets in.
    if ((await restrictSocketFolder(dir, sandboxUser)) === 'everyone') options.sink(say(`The gateway folder of ${id} is reachable by every local user: cadre runs neither as the container's user (uid ${sandboxUser.uid}) nor in its group.`, 'warn'));
    const gateway = await startGateway({
      socketPath: join(dir, 'gateway.sock'),
      // Bound to the one credential it was opened with: a token an earlier cadre process issued for this container is refused.
      container: { cid: id, session: options.session(), jti: token.jti, ...(repositoryHost(repoUrl) ? { repoHost: repositoryHost(repoUrl)! } : {}), allowedDomains: network.allowedDomains, networkIsolation: network.isolation },
      provider: options.model?.provider ?? { kind: 'anthropic', baseUrl: upstreamDefaults.anthropic, apiKey: '' },
      credentials: options.credentials,
      budget: options.budget,
      audit: (type, data) => {
        if (type === 'egress.decision' && data.allowed === false) noteRefusal(id, data);
        options.audit(type, data);
      },
      output: options.sink,
      allowLoopbackUpstreams: options.allowLoopbackUpstreams,
      ...(options.mcp ? { mcp: options.mcp } : {}),
      registryHosts: network.isolation ? [] : await options.registryHosts(id),
    });
    const entry = { gateway, ...token };
    open.set(id, entry);
    // One tunnel per container for the gateway's life: a reopened gateway listens at the same path, so the tunnel stays.
    if (reach.kind === 'tunnel' && !tunnels.has(id)) {
      tunnels.set(id, keepTunnel({ cid: id, socketPath: gateway.socketPath, openStream: () => reach.openStream(id, tunnelForwarderCommand), audit: options.audit }));
    }
    return entry;
  }

  return {
    /** The binds container `id` needs for its gateway: the socket's folder read-only at /run/cadre, or none through a tunnel. */
    binds: (id: string): string[] => (reach.kind === 'socket-bind' ? [`${socketDir(id)}:/run/cadre:ro`] : []),

    /** Starts (or restarts, with new network rules) the gateway of container `id`; its token lives until `deadline`. */
    open: (id: string, repoUrl: string, network: GatewayNetwork, deadline: number): Promise<void> => serially(id, async () => {
      const previous = open.get(id);
      // Calls in flight finish on the old gateway and are charged as usual; new connections reach the new one.
      if (previous) await previous.gateway.close({ drain: true });
      const token = previous && previous.exp * 1000 >= deadline - 1000
        ? { token: previous.token, jti: previous.jti, exp: previous.exp }
        : options.credentials.issueContainerToken({ session: options.session(), cid: id, deadline: new Date(deadline) });
      if (previous && previous.jti !== token.jti) await options.credentials.revoke(previous.jti, previous.exp);
      await start(id, repoUrl, network, token);
      await writeDeadlineFile(socketDir(id), deadline);
      options.audit('gateway.opened', { cid: id, networkIsolation: network.isolation, allowedDomains: network.allowedDomains, jti: token.jti.slice(0, 8) });
    }),

    /**
     * Writes the deadline the container's init enforces, with or without an open gateway: a stopped container given a later
     * deadline must not stop itself again at its start for the old one.
     */
    moveDeadline: (id: string, deadline: number): Promise<void> => serially(id, async () => {
      await mkdir(socketDir(id), { recursive: true });
      await writeDeadlineFile(socketDir(id), deadline);
    }),

    isOpen: (id: string): boolean => open.has(id),

    /** The egress refusals of container `id` since `since` (the latest 50 are kept). */
    refusedSince: (id: string, since: Date): RefusedHost[] =>
      (refusals.get(id) ?? []).filter((entry) => entry.at >= since.getTime()).map(({ at: _at, ...entry }) => entry),

    /**
     * Closes the gateway of `id` and revokes its token; harmless when there is none. The socket folder goes too unless
     * `keepFolder` (it is bind-mounted into the container: remove it only once the container is gone).
     */
    close: (id: string, options_: { keepFolder?: boolean } = {}): Promise<void> => serially(id, async () => {
      const entry = open.get(id);
      open.delete(id);
      await stopTunnel(id);
      if (entry) {
        await entry.gateway.close();
        await options.credentials.revoke(entry.jti, entry.exp);
        options.audit('gateway.closed', { cid: id, revoked: entry.jti.slice(0, 8) });
      }
      if (!options_.keepFolder) await rm(socketDir(id), { recursive: true, force: true });
    }),

    /**
     * The runner's environment: the JWT as the provider key, the container's own env, and the gateway's socket, which the
     * runner's own calls go to directly (the base URLs on the forwarder serve everything else in the container).
     */
    runnerEnv(id: string, extra: Record<string, string>): Record<string, string> {
      const entry = open.get(id);
      if (!options.model) throw new CadreError('vm-agent.no-model', 'vm-agent needs a model, and none is configured.', { remedy: modelSetupHint });
      if (!entry) throw new CadreError('vm-agent.no-gateway', `Container ${id} has no gateway in this cadre process.`, { remedy: `Restart it with /vm-restart ${id}, then run the task again.` });
      const kind = options.model.provider.kind;
      const gatewayEnv = containerGatewayEnv({ provider: kind, token: entry.token });
      // Through a tunnel there is no socket in the container: the runner's calls go through the forwarder's port like the rest.
      const socket: Record<string, string> = reach.kind === 'socket-bind' ? { CADRE_GATEWAY_SOCKET: containerGatewaySocket } : {};
      return { ...extra, ...gatewayEnv, ...(options.mcp ? containerMcpEnv() : {}), ...socket, CADRE_MODEL: `${kind === 'anthropic' ? 'anthropic' : 'openai'}:${options.model.model}` };
    },

    /** Removes the socket folder of container `id` once the container is gone (its gateway child closed the gateway before). */
    removeFolder: (id: string): Promise<void> => serially(id, () => rm(socketDir(id), { recursive: true, force: true })),

    /** Resolves once every open, reopen and close asked so far has ended (at exit: the gateway children's closes). */
    async drained(): Promise<void> {
      // A child's close is asked a few microtasks after it is stopped: let those land first.
      await new Promise((resolve) => setImmediate(resolve));
      while (queues.size > 0) await Promise.all([...queues.values()]);
    },

    async closeAll(): Promise<void> {
      await Promise.all([...tunnels.keys()].map(stopTunnel));
      await Promise.all([...open.values()].map((entry) => entry.gateway.close().catch(() => undefined)));
      open.clear();
    },
  };
}

export type Gateways = ReturnType<typeof createGateways>;
