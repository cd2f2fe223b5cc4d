// A container's credential from before its gateway was reopened (cadre killed and started again, /vm-restart) is refused as
// superseded or revoked, never as another container's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { createGateways } from '../../src/gateway/pool.js';
import { realKey, requestOverSocket, startRecordingUpstream } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const message = JSON.stringify({ model: 'claude-test', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

it('the token an earlier cadre process gave the container is superseded; one replaced by /vm-restart is revoked', async () => {
  const home = await mkdtemp(join(tmpdir(), 'cadre-superseded-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const upstream = await startRecordingUpstream({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } });
  cleanups.push(upstream.close);
  // Two cadre processes of one installation, one after the other: the first killed with its gateway open (nothing revoked).
  const processOf = async (audit: Array<Record<string, unknown>>) => createGateways({
    runDir: join(home, 'run'), session: () => 'session-1', credentials: await openCredentials({ keysDir: join(home, 'keys') }), budget: createBudget(),
    model: { provider: { kind: 'anthropic', baseUrl: upstream.url, apiKey: realKey }, model: 'claude-test' },
    audit: (type, data) => audit.push({ type, ...data }), sink: () => undefined, allowLoopbackUpstreams: true, registryHosts: async () => [],
  });
  const network = { isolation: false, allowedDomains: [] };
  const tokenOf = (gateways: Awaited<ReturnType<typeof processOf>>): string => gateways.runnerEnv('vm-1', {}).ANTHROPIC_API_KEY!;
  const socketPath = join(home, 'run', 'vm-1', 'gateway.sock');
  const call = (token: string) => requestOverSocket(socketPath, { path: '/v1/messages', headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01' }, body: message });

  const first = await processOf([]);
  cleanups.push(() => first.closeAll());
  await first.open('vm-1', 'https://example.invalid/r.git', network, Date.now() + 600_000);
  const before = tokenOf(first);
  const audit: Array<Record<string, unknown>> = [];
  const second = await processOf(audit);
  cleanups.push(() => second.closeAll());
  await second.open('vm-1', 'https://example.invalid/r.git', network, Date.now() + 600_000);
  const now = tokenOf(second);

  const refused = await call(before);
  expect(refused.status).toBe(401);
  expect(refused.body).toContain('(superseded)');
  expect(audit.filter((entry) => entry.type === 'gateway.auth-failed').map((entry) => entry.reason)).toEqual(['superseded']);
  expect((await call(now)).status).toBe(200);

  // /vm-restart with a later deadline: a new credential, the one before it revoked.
  await second.open('vm-1', 'https://example.invalid/r.git', network, Date.now() + 1_200_000);
  const revoked = await call(now);
  expect(revoked.status).toBe(401);
  expect(revoked.body).toContain('(revoked)');
  expect((await call(tokenOf(second))).status).toBe(200);
  expect(upstream.seen).toHaveLength(2);
});
