// The per-container gateway: one Unix socket serving model calls (origin-form) and egress (CONNECT, absolute URLs).
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import { dirname } from 'node:path';
import { say } from '../cli/output.js';
import type { OutputSink } from '../cli/output.js';
import type { GatewayAudit } from './audit.js';
import type { Budget } from './budget.js';
import type { Credentials } from './credentials.js';
import { createEgressProxy } from './egress.js';
import { createEgressPolicy } from './egress-policy.js';
import type { Resolver } from './egress-policy.js';
import { loadTokenCounter } from './metering.js';
import { createModelProxy } from './model-proxy.js';
import type { ModelProxyOptions } from './model-proxy.js';
import type { ProviderConfig } from './providers.js';
import { packageManagerRegistryHosts } from './registries.js';

export interface GatewayContainer {
  cid: string;
  session: string;
  /** The repository's git host (e.g. the host of its clone URL). */
  repoHost?: string;
  allowedDomains: string[];
  networkIsolation: boolean;
}

export interface GatewayOptions {
  /** Host path of the socket; the container layer bind-mounts it at /run/cadre/gateway.sock. */
  socketPath: string;
  container: GatewayContainer;
  provider: ProviderConfig;
  credentials: Pick<Credentials, 'verifyContainerToken'>;
  budget: Budget;
  audit: GatewayAudit;
  /** Registry hosts for the allowlist; read from npm's and yarn's configuration when omitted. */
  registryHosts?: string[];
  /** Lets egress reach loopback addresses on any port: for tests with local upstreams only. Announced when on. */
  allowLoopbackUpstreams?: boolean;
  /** Where the loud announcement goes; standard error when omitted. */
  output?: OutputSink;
  resolver?: Resolver;
  limits?: Pick<ModelProxyOptions, 'maxBodyBytes' | 'upstreamIdleTimeoutMs' | 'defaultMaxOutput'>;
}

export interface Gateway {
  socketPath: string;
  /** Stops listening, ends open calls and tunnels, removes the socket. */
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { socketPath, container, audit } = options;
  if (options.allowLoopbackUpstreams === true) {
    const text = `WARNING: the gateway for container ${container.cid} lets egress reach loopback addresses on any port (allowLoopbackUpstreams). This is for tests with local upstreams; never use it for real work.`;
    if (options.output) options.output(say(text, 'warn'));
    else process.stderr.write(`${text}\n`);
    audit('gateway.warning', { cid: container.cid, allowLoopbackUpstreams: true });
  }
  const registryHosts = options.registryHosts ?? (container.networkIsolation ? [] : await packageManagerRegistryHosts());
  const decide = createEgressPolicy(
    {
      repoHost: container.repoHost,
      registryHosts,
      allowedDomains: container.allowedDomains,
      networkIsolation: container.networkIsolation,
      allowLoopbackUpstreams: options.allowLoopbackUpstreams === true,
    },
    options.resolver,
  );
  const egress = createEgressProxy({ decide, audit, cid: container.cid });
  const countTokens = await loadTokenCounter();
  const model = createModelProxy({ ...options.limits, provider: options.provider, credentials: options.credentials, container, budget: options.budget, audit, countTokens });

  const server = http.createServer({ requestTimeout: 0 }, (req, res) => {
    // Origin-form targets are model calls on the model port; absolute URLs are proxy requests.
    if ((req.url ?? '').startsWith('/')) model(req, res);
    else egress.handleRequest(req, res);
  });
  server.on('connect', (req, socket, head) => egress.handleConnect(req, socket, head));
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await mkdir(dirname(socketPath), { recursive: true, mode: 0o700 });
  await removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The container's non-root user must be able to connect; the folder (0700) keeps other host users out.
  await chmod(socketPath, 0o666);

  return {
    socketPath,
    async close() {
      egress.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await rm(socketPath, { force: true });
    },
  };
}

async function removeStaleSocket(path: string): Promise<void> {
  try {
    if ((await lstat(path)).isSocket()) await rm(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
