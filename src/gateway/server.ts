// The per-container gateway: one Unix socket serving model calls and MCP tools (origin-form) and egress (CONNECT, absolute URLs).
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import { dirname } from 'node:path';
import { say } from '../output.js';
import type { OutputSink } from '../output.js';
import type { GatewayAudit } from './audit.js';
import type { Budget } from './budget.js';
import type { Credentials } from './credentials.js';
import { createEgressProxy } from './egress.js';
import { createEgressPolicy } from './egress-policy.js';
import type { Resolver } from './egress-policy.js';
import { createBoundedAudit } from './refusals.js';
import { loadTokenCounter } from './token-estimate.js';
import { mcpRoutePrefix } from './container-env.js';
import { createMcpProxy } from './mcp-proxy.js';
import { createModelProxy } from './model-proxy.js';
import type { ContainerMcp } from '../mcp/for-containers.js';
import type { ModelProxyOptions } from './model-proxy.js';
import type { ProviderConfig } from './providers.js';
import { packageManagerRegistryHosts } from './registries.js';

export interface GatewayContainer {
  cid: string;
  session: string;
  /** The one credential this gateway accepts (its jti); without it, any valid token of this container and session. */
  jti?: string;
  /** The repository's git host (e.g. the host of its clone URL). */
  repoHost?: string;
  allowedDomains: string[];
  networkIsolation: boolean;
  /** Provider-side tool types this container may use (web search, code execution…); none unless configured. */
  serverTools?: string[];
}

export interface GatewayLimits extends Pick<ModelProxyOptions, 'maxBodyBytes' | 'upstreamIdleTimeoutMs' | 'defaultMaxOutput'> {
  /** Connections open at once (model calls, proxy requests and tunnels together); default 64. */
  maxConnections?: number;
  /** Time to send the request headers; default 15 s. */
  headersTimeoutMs?: number;
  /** Time to send a whole request, body included; default 120 s. */
  requestTimeoutMs?: number;
  /** A tunnel or proxied request that moves no byte for this long is closed; default 10 minutes. */
  tunnelIdleTimeoutMs?: number;
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
  limits?: GatewayLimits;
  /** The host's MCP servers offered to containers (served on /cadre/mcp/); none when omitted. */
  mcp?: ContainerMcp;
}

export interface Gateway {
  socketPath: string;
  /**
   * Stops listening and removes the socket, ends tunnels and proxy requests. Model calls in flight are ended too,
   * unless `drain` (a gateway reopened with new rules): then they finish and are charged as usual.
   */
  close(options?: { drain?: boolean }): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { socketPath, container } = options;
  const limits = options.limits ?? {};
  const audit = createBoundedAudit(options.audit, { cid: container.cid });
  if (options.allowLoopbackUpstreams === true) {
    const text = `WARNING: the gateway for container ${container.cid} lets egress reach loopback addresses on any port (allowLoopbackUpstreams). This is for tests with local upstreams; never use it for real work.`;
    if (options.output) options.output(say(text, 'warn'));
    else process.stderr.write(`${text}\n`);
    audit.record('gateway.warning', { cid: container.cid, allowLoopbackUpstreams: true });
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
  const egress = createEgressProxy({ decide, audit, cid: container.cid, idleTimeoutMs: limits.tunnelIdleTimeoutMs ?? 600_000 });
  const model = createModelProxy({ ...limits, provider: options.provider, credentials: options.credentials, container, budget: options.budget, audit, countTokens: loadTokenCounter });
  const mcp = createMcpProxy({ mcp: options.mcp, credentials: options.credentials, container, budget: options.budget, audit, hostSecrets: [options.provider.apiKey] });

  const server = http.createServer({
    requestTimeout: limits.requestTimeoutMs ?? 120_000,
    headersTimeout: Math.min(limits.headersTimeoutMs ?? 15_000, limits.requestTimeoutMs ?? 120_000),
    connectionsCheckingInterval: 1_000,
  }, (req, res) => {
    // Origin-form targets are model calls on the model port; absolute URLs are proxy requests.
    try {
      if ((req.url ?? '').startsWith(mcpRoutePrefix)) mcp.handle(req, res);
      else if ((req.url ?? '').startsWith('/')) model.handle(req, res);
      else egress.handleRequest(req, res);
    } catch (error) {
      audit.record('gateway.error', { cid: container.cid, error: error instanceof Error ? error.message : String(error) });
      res.destroy();
    }
  });
  server.maxConnections = limits.maxConnections ?? 64;
  server.on('drop', () => audit.refusal('gateway.refused', 'connection-cap', { reason: 'connection-cap', limit: server.maxConnections }));
  // An HTTP server hands CONNECT requests the net.Socket it accepted.
  server.on('connect', (req, socket, head) => egress.handleConnect(req, socket as net.Socket, head));
  const refusedSockets = new WeakSet<object>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT';
    const reason = timedOut ? 'slow-request' : 'malformed-http';
    // A connection refused once (say, timed out) often fails to parse as it closes: one record for it.
    if (!refusedSockets.has(socket)) audit.refusal('gateway.refused', reason, { reason, error: error.code ?? 'error' });
    refusedSockets.add(socket);
    if (socket.writable) {
      socket.end(timedOut ? 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n' : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      // A client that never reads nor closes would otherwise keep the connection half open.
      setTimeout(() => socket.destroy(), 1_000).unref();
    } else {
      socket.destroy();
    }
  });

  // The folder is made by the caller with its permissions (see gatewaySocketFolder); this only fills in a missing one, private.
  await mkdir(dirname(socketPath), { recursive: true, mode: 0o700 });
  await removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // An accept failure (EMFILE) or any later server error is this container's problem, recorded, never cadre's crash.
  server.on('error', (error) => audit.record('gateway.error', { cid: container.cid, error: error.message }));
  // The container's user must be able to connect; the folder keeps other host users out.
  await chmod(socketPath, 0o666);

  return {
    socketPath,
    async close(closeOptions = {}) {
      egress.close();
      const ended = new Promise<void>((resolve) => server.close(() => resolve()));
      if (closeOptions.drain) {
        server.closeIdleConnections();
        void Promise.allSettled(model.inFlight()).then(() => ended).then(() => {
          model.close();
          audit.flush();
        });
        // Node unlinks the socket when the listener closes; a reopened gateway listens at the same path after this.
        await new Promise((resolve) => setImmediate(resolve));
        return;
      }
      mcp.close();
      server.closeAllConnections();
      await ended;
      model.close();
      audit.flush();
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
