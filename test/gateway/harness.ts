// Test harness: a real gateway on a temporary Unix socket, with real credentials, a budget and a recorded audit trail.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBudget } from '../../src/gateway/budget.js';
import type { Budget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import type { Credentials } from '../../src/gateway/credentials.js';
import { startGateway } from '../../src/gateway/server.js';
import type { Gateway, GatewayOptions } from '../../src/gateway/server.js';
import type { ProviderConfig } from '../../src/gateway/providers.js';

export const realKey = 'sk-real-provider-key-0123456789abcdef-NEVER-IN-CONTAINER';

export interface AuditEntry {
  type: string;
  data: Record<string, unknown>;
}

export interface Harness {
  socketPath: string;
  gateway: Gateway;
  credentials: Credentials;
  budget: Budget;
  audit: AuditEntry[];
  /** What the gateway announced (the loopback warning). */
  announced: string[];
  token: string;
  jti: string;
  close(): Promise<void>;
}

export async function startHarness(input: {
  provider: Omit<ProviderConfig, 'apiKey'> & { apiKey?: string };
  budgetLimit?: number;
  container?: Partial<GatewayOptions['container']>;
  options?: Partial<Pick<GatewayOptions, 'allowLoopbackUpstreams' | 'registryHosts' | 'resolver' | 'limits' | 'mcp'>>;
}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-gateway-'));
  const credentials = await openCredentials({ keysDir: join(dir, 'keys') });
  const budget = createBudget({ limit: input.budgetLimit ?? 50_000 });
  const audit: AuditEntry[] = [];
  const announced: string[] = [];
  const base = { cid: 'c1', session: 's1', allowedDomains: [], networkIsolation: false, ...input.container };
  const { token, jti } = credentials.issueContainerToken({ session: base.session, cid: base.cid, deadline: new Date(Date.now() + 3_600_000) });
  // Bound to its own credential, as the gateway pool opens it.
  const container = { jti, ...base };
  const gateway = await startGateway({
    socketPath: join(dir, 'run', 'gateway.sock'),
    container,
    provider: { apiKey: realKey, ...input.provider },
    credentials,
    budget,
    audit: (type, data) => audit.push({ type, data }),
    output: (event) => announced.push(event.type === 'output.message' ? event.text : event.type),
    registryHosts: [],
    ...input.options,
  });
  return {
    socketPath: gateway.socketPath,
    gateway,
    credentials,
    budget,
    audit,
    announced,
    token,
    jti,
    async close() {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request over the gateway's Unix socket. */
export function requestOverSocket(socketPath: string, input: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method: input.method ?? 'POST', path: input.path, headers: input.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(input.body);
  });
}

/** Starts a plain HTTP server on 127.0.0.1 and returns its origin. */
export async function startLocalServer(handler: http.RequestListener): Promise<{ url: string; port: number; server: http.Server; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local upstream that records each request and answers every one with `reply` as JSON. */
export async function startRecordingUpstream(reply: object): Promise<{ url: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  const upstream = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  return { url: upstream.url, seen, close: upstream.close };
}
