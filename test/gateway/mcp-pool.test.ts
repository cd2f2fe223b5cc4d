// The gateway pool with MCP servers for containers: the runner's environment points at them, the gateway serves them under
// the container's JWT, a spent budget refuses calls, and without such servers nothing is offered.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { createGateways } from '../../src/gateway/pool.js';
import { createContainerMcp } from '../../src/mcp/for-containers.js';
import { gatewayMcpTools } from '../../src/runner/mcp-tools.js';
import { runRunnerTool } from '../../src/runner/tools/run-tool.js';
import { configSchema } from '../../src/store/config-schema.js';
import { everythingServer } from '../support/mcp-servers.js';
import { requestOverSocket } from './harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pool(options: { containers: boolean; budgetLimit?: number }) {
  const home = await mkdtemp(join(tmpdir(), 'cadre-mcp-pool-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const credentials = await openCredentials({ keysDir: join(home, 'keys') });
  const budget = createBudget({ limit: options.budgetLimit ?? 50_000 });
  const servers = configSchema.parse({ mcp: { servers: { everything: { ...everythingServer(), containers: options.containers } } } }).mcp.servers;
  const mcp = createContainerMcp({ servers, cwd: home, sink: () => undefined, version: 'test' });
  if (mcp) cleanups.push(() => mcp.close());
  const audit: { type: string; data: Record<string, unknown> }[] = [];
  const gateways = createGateways({
    runDir: join(home, 'run'), session: () => 's1', credentials, budget, sink: () => undefined, allowLoopbackUpstreams: false, registryHosts: async () => [],
    model: { provider: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-host-key' }, model: 'm' },
    audit: (type, data) => audit.push({ type, data }), ...(mcp ? { mcp } : {}),
  });
  await gateways.open('vm-mcp', 'https://example.invalid/r.git', { isolation: true, allowedDomains: [] }, Date.now() + 300_000);
  cleanups.push(() => gateways.close('vm-mcp'));
  const env = gateways.runnerEnv('vm-mcp', {});
  const ask = (path: string, body?: object) => requestOverSocket(join(home, 'run', 'vm-mcp', 'gateway.sock'), {
    method: body ? 'POST' : 'GET', path, headers: { authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { env, ask, budget, audit, socketPath: join(home, 'run', 'vm-mcp', 'gateway.sock') };
}

it('a server with containers: true is in the runner\'s environment and served under the container\'s JWT', async () => {
  const { env, ask } = await pool({ containers: true });
  expect(env.CADRE_MCP_URL).toBe('http://127.0.0.1:4100/cadre/mcp');
  // The runner's own calls go to the socket directly; the forwarder's port serves everything else in the container.
  expect(env.CADRE_GATEWAY_SOCKET).toBe('/run/cadre/gateway.sock');
  const listed = await ask('/cadre/mcp/tools');
  expect(listed.status).toBe(200);
  expect((JSON.parse(listed.body) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('mcp__everything__echo');
  const called = await ask('/cadre/mcp/call', { server: 'everything', tool: 'echo', arguments: { message: 'hi' } });
  expect(JSON.parse(called.body)).toEqual({ output: 'Echo: hi', isError: false, truncated: false });
}, 60_000);

it('the runner lists and calls them over the gateway\'s socket, as its environment says (CADRE_GATEWAY_SOCKET here names the host\'s path)', async () => {
  const { env, socketPath } = await pool({ containers: true });
  // Nothing listens at CADRE_MCP_URL's port on the host: the socket carries the requests.
  const tools = await gatewayMcpTools({ ...env, CADRE_MCP_URL: 'http://127.0.0.1:9/cadre/mcp', CADRE_GATEWAY_SOCKET: socketPath });
  expect(tools.map((tool) => tool.name)).toContain('mcp__everything__echo');
  const workspace = await mkdtemp(join(tmpdir(), 'cadre-mcp-workspace-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  const result = await runRunnerTool(tools, { id: 'c1', name: 'mcp__everything__echo', input: { message: 'over the socket' } }, { workspace, emit: () => undefined, signal: new AbortController().signal });
  expect(result).toMatchObject({ output: 'Echo: over the socket' });
  expect(result.isError).toBe(false);
}, 60_000);

it('once the session\'s budget is spent, an MCP call is refused before it reaches the server', async () => {
  const { ask, budget, audit } = await pool({ containers: true, budgetLimit: 10 });
  const held = budget.reserve(5, 5);
  if (!held.ok) throw new Error('the reservation should fit');
  budget.settle(held.reservation, { input: 5, output: 5 });
  const refused = await ask('/cadre/mcp/call', { server: 'everything', tool: 'echo', arguments: { message: 'hi' } });
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toEqual({ error: { code: 'budget', message: 'cadre gateway: token budget exhausted: used 10 of 10' } });
  expect(audit.filter((entry) => entry.type === 'gateway.mcp-call')).toEqual([]);
}, 60_000);

it('without a server for containers, the runner is told of none and the gateway offers nothing', async () => {
  const { env, ask } = await pool({ containers: false });
  expect(env.CADRE_MCP_URL).toBeUndefined();
  const listed = await ask('/cadre/mcp/tools');
  expect(listed.status).toBe(404);
  expect(JSON.parse(listed.body)).toMatchObject({ error: { code: 'no-servers' } });
}, 60_000);
