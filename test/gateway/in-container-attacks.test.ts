// Real Docker: attacks on the gateway from inside a sandbox container, through its forwarder, while a neighbour works.
import { readdir } from 'node:fs/promises';
import type Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { startModelServer } from '../support/model-server.js';
import { prepareSandboxHost, startGatewaySandbox, type SandboxHost } from './container-support.js';
import { echoPlaces, leaks, startEchoingUpstream } from './echoing-upstream.js';
import { realKey, startHarness } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describeDocker('attacks on the gateway from a real container', () => {
  let host: SandboxHost;
  beforeAll(async () => {
    host = await prepareSandboxHost();
  });
  afterAll(() => host.close());

  async function containerWithGateway(turns: number): Promise<{ gateway: Harness; container: Docker.Container; requests: () => number }> {
    const model = await startModelServer({ script: { turns: Array.from({ length: turns }, () => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 2 } })) }, requiredApiKey: realKey });
    cleanups.push(model.close);
    const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url } });
    cleanups.push(gateway.close);
    const { container } = await startGatewaySandbox({ host, gateway, kind: 'anthropic', cleanups });
    return { gateway, container, requests: () => model.requests.length };
  }

  const attack = async (container: Docker.Container, ...args: string[]): Promise<Record<string, unknown>> => {
    const run = await execIn(host.docker, container, [host.node.node, '/opt/cadre/fixtures/container-attacks.mjs', ...args]);
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  };
  const sdkCall = (container: Docker.Container) => execIn(host.docker, container, [host.node.node, '/opt/cadre/fixtures/container-client.mjs', 'anthropic-once']);

  it('a flood of never-ending requests is capped at the gateway: cadre keeps its file descriptors and the neighbour works', { timeout: 120_000 }, async () => {
    const hostile = await containerWithGateway(2);
    const neighbour = await containerWithGateway(2);
    const fdsBefore = (await readdir('/proc/self/fd')).length;
    const flooding = attack(hostile.container, 'flood', '2000', '4000');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const fdsDuring = (await readdir('/proc/self/fd')).length;
    const neighbourCall = await sdkCall(neighbour.container);
    const flood = await flooding;

    expect(fdsDuring - fdsBefore).toBeLessThan(200);
    expect(flood.closedByGateway).toBeGreaterThanOrEqual(2_000 - 64 - 10);
    expect(JSON.parse(neighbourCall.stdout.trim())).toEqual({ text: 'ok' });
    expect(hostile.gateway.audit.filter((entry) => entry.data.reason === 'connection-cap').length).toBeGreaterThan(0);
    expect(hostile.gateway.audit.filter((entry) => entry.type === 'gateway.refusals-counted' || entry.data.reason === 'connection-cap').length).toBeLessThanOrEqual(21);
    // Once the flood ends, the hostile container's own calls are served again.
    expect(JSON.parse((await sdkCall(hostile.container)).stdout.trim())).toEqual({ text: 'ok' });
  });

  it('a 1 MiB field and JSON a million levels deep are refused at once, and none of it reaches the provider', { timeout: 60_000 }, async () => {
    const hostile = await containerWithGateway(1);
    const field = await attack(hostile.container, 'big-field');
    expect(field).toMatchObject({ status: 400 });
    expect(String(field.body)).toContain('is 1048576 characters long');
    expect(await attack(hostile.container, 'deep-json')).toMatchObject({ status: 400 });
    expect(hostile.requests()).toBe(0);
    expect(Math.max(...hostile.gateway.audit.map((entry) => JSON.stringify(entry).length))).toBeLessThan(2_000);
    expect(JSON.parse((await sdkCall(hostile.container)).stdout.trim())).toEqual({ text: 'ok' });
  });

  it('MCP servers, provider-side fetches, URL sources and the MCP beta are refused with the real key never used for them', { timeout: 60_000 }, async () => {
    const hostile = await containerWithGateway(2);
    expect(await attack(hostile.container, 'provider-egress')).toEqual({ mcp: 400, webFetch: 400, urlImage: 400, mcpBeta: 200 });
    // The call asking for the MCP beta went out without it.
    expect(hostile.requests()).toBe(1);
    const refusals = hostile.gateway.audit.filter((entry) => entry.type === 'gateway.refused').map((entry) => entry.data.reason);
    expect(refusals).toEqual(['unknown-field', 'server-tool', 'url-source', 'beta']);
  });

  it('an upstream quoting the host key in every reply and header gets no form of it into the container', { timeout: 60_000 }, async () => {
    const upstream = await startEchoingUpstream('anthropic');
    cleanups.push(upstream.close);
    const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: upstream.url } });
    cleanups.push(gateway.close);
    const { container } = await startGatewaySandbox({ host, gateway, kind: 'anthropic', cleanups });
    const { replies } = await attack(container, 'key-echo') as { replies: Array<{ place: string; status: number; headers: string[]; body: string }> };
    expect(replies.map((reply) => [reply.place, reply.status])).toEqual(echoPlaces.map((place) => [place, place === '400' || place === 'encoded' ? 400 : place === '429' ? 429 : 200]));
    expect(leaks(JSON.stringify(replies), realKey)).toEqual([]);
    expect(replies.find((reply) => reply.place === 'stream')?.body).toContain('the key is [secret removed by the cadre gateway] and');
    expect(upstream.keys).toEqual(echoPlaces.map(() => realKey));
  });
});
