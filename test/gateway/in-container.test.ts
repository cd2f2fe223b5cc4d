// Real Docker: a container with no network reaches the model and an allowed registry only through the gateway, holding no key.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ProviderKind } from '../../src/gateway/providers.js';
import { describeDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { startModelServer } from '../support/model-server.js';
import { filesContaining, prepareSandboxHost, startGatewaySandbox, startLocalRegistry, type SandboxHost } from './container-support.js';
import { realKey, startHarness } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describeDocker('gateway with a real container', () => {
  let host: SandboxHost;
  beforeAll(async () => {
    host = await prepareSandboxHost();
  });
  afterAll(() => host.close());

  const sandbox = (gateway: Harness, kind: ProviderKind, registry?: string) => startGatewaySandbox({ host, gateway, kind, registry, cleanups });

  async function setup(kind: ProviderKind, budgetLimit: number, registryHosts: string[]): Promise<{ gateway: Harness; modelUrl: string }> {
    const model = await startModelServer({
      script: { turns: [{ text: 'plain answer', usage: { inputTokens: 12, outputTokens: 5 } }, { text: 'streamed answer', usage: { inputTokens: 30, outputTokens: 9 } }] },
      requiredApiKey: realKey,
    });
    cleanups.push(model.close);
    const gateway = await startHarness({
      provider: { kind, baseUrl: kind === 'anthropic' ? model.url : `${model.url}/v1` },
      budgetLimit,
      options: { allowLoopbackUpstreams: true, registryHosts },
    });
    cleanups.push(gateway.close);
    return { gateway, modelUrl: model.url };
  }

  it('@anthropic-ai/sdk and npm install work through the gateway; refusals are clear; the key is nowhere', { timeout: 120_000 }, async () => {
    const registry = await startLocalRegistry();
    cleanups.push(registry.close);
    const { gateway } = await setup('anthropic', 10_000, ['localhost']);
    const { container, workspace } = await sandbox(gateway, 'anthropic', registry.url);

    const run = await execIn(host.docker, container, [host.node.node, '/opt/cadre/fixtures/container-client.mjs', 'anthropic']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({
      text: 'plain answer',
      streamed: 'streamed answer',
      refused: expect.stringMatching(/^RateLimitError: 429 .*token budget exhausted: used 56 of 10000/),
    });

    const install = await execIn(host.docker, container, [host.node.node, host.node.npmCli, 'install', registry.packageName, '--no-audit', '--no-fund', '--no-update-notifier']);
    expect(install.exitCode, install.stderr).toBe(0);
    expect(await filesContaining(join(workspace, 'node_modules', registry.packageName), 'hello through the gateway')).toHaveLength(1);

    const refused = await execIn(host.docker, container, [host.node.node, host.node.npmCli, 'install', 'left-pad', '--registry', 'http://registry.cadre-test.invalid/', '--no-audit', '--no-fund', '--fetch-retries=0']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/403/);
    const decisions = gateway.audit.filter((entry) => entry.type === 'egress.decision').map((entry) => [entry.data.host, entry.data.allowed, entry.data.rule]);
    expect(decisions).toContainEqual(['localhost', true, 'package-registry']);
    expect(decisions).toContainEqual(['registry.cadre-test.invalid', false, 'not-allowlisted']);

    const environ = await execIn(host.docker, container, ['sh', '-c', 'cat /proc/[0-9]*/environ | tr "\\0" "\\n"']);
    expect(environ.stdout).toContain(`ANTHROPIC_API_KEY=${gateway.token}`);
    expect(environ.stdout).not.toContain(realKey);
    expect(JSON.stringify((await container.inspect()).Config.Env)).not.toContain(realKey);
    expect(await filesContaining(workspace, realKey)).toEqual([]);
    const hostOutput = JSON.stringify([gateway.audit, gateway.announced, run, install, refused]);
    expect(hostOutput).not.toContain(realKey);
    expect(JSON.stringify(gateway.audit)).not.toContain(gateway.token);
  });

  it('the openai client streams through the gateway with usage settled, and cannot reach the upstream directly', { timeout: 60_000 }, async () => {
    const { gateway, modelUrl } = await setup('openai', 50_000, []);
    const { container } = await sandbox(gateway, 'openai');
    // The container has no network of its own: the host's model server is out of reach except through the gateway.
    const upstreamPort = new URL(modelUrl).port;
    const direct = await execIn(host.docker, container, [host.node.node, '-e', `require('net').connect(${upstreamPort}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(3))`]);
    expect(direct.exitCode).toBe(3);
    const run = await execIn(host.docker, container, [host.node.node, '/opt/cadre/fixtures/container-client.mjs', 'openai']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ text: 'plain answer', streamed: 'streamed answer' });
    expect(gateway.budget.snapshot()).toMatchObject({ used: 56, reserved: 0 });
  });
});
