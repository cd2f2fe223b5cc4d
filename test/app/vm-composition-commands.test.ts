// The vm composition through its commands, in-process and without an engine: /vm-create, /vm-restart while a task waits on
// it, /vm-config on a running container and /vm-cleanup, run by the real command handlers over the real runtime and root
// actor, with only the sandboxes on a backend kept in memory (startApp's `sandboxes` option). The Docker e2e tests keep the truth.
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app/root.js';
import type { OutputEvent } from '../../src/output.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { createMemoryBackend, type MemoryBackend } from '../support/memory-backend.js';

const mb = 1024 ** 2;
const app = 'https://git.example.test/acme/app.git';
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5_000) throw new Error(`waited 5 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** The status line a CONNECT through the container's forwarder gets from its gateway. */
function connectThrough(proxyPort: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

describe('the vm commands in-process over a backend in memory', () => {
  let home = '';
  let cwd = '';
  let cadre: App;
  let backend: MemoryBackend | undefined;
  const events: OutputEvent[] = [];
  let id = '';

  const run = async (line: string) => {
    const from = events.length;
    const outcome = await cadre.submit(line);
    const said = events.slice(from);
    expect(outcome.exitCode, `${line}: ${JSON.stringify(said.filter((event) => event.type === 'output.error'))}`).toBe(0);
    return said;
  };
  const resultOf = (said: OutputEvent[], kind: string): Record<string, unknown> => {
    const found = said.find((event) => event.type === 'output.result' && event.kind === kind);
    if (found?.type !== 'output.result') throw new Error(`no ${kind} result in ${JSON.stringify(said)}`);
    return found.data as Record<string, unknown>;
  };
  const memory = (): MemoryBackend => {
    if (!backend) throw new Error('the vm engine did not make its backend');
    return backend;
  };
  const engine = () => cadre.runtime.vm.engine();
  const runDir = () => join(cadre.paths.dataDir, 'run');

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cadre-commands-home-'));
    cwd = await mkdtemp(join(tmpdir(), 'cadre-commands-cwd-'));
    const repositories = new Map([[app, { 'README.md': '# app\n', 'package.json': '{"name":"app"}\n' }]]);
    cadre = await startApp({
      cwd, env: { HOME: home, CADRE_HOME: home, PATH: process.env.PATH ?? '' }, sink: (event) => void events.push(event), interactive: false,
      sandboxes: {
        backend: ({ workspacesDir }) => (backend = createMemoryBackend(repositories, { workspacesDir })),
        image: 'cadre-sandbox:memory',
        ensureImage: async () => undefined,
        imageRegistryHosts: async () => [],
      },
    });
  });

  afterAll(async () => {
    await cadre?.shutdown();
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
    await rm(cwd, { recursive: true, force: true, maxRetries: 5 });
  });

  it('/vm-create clones into a new sandbox made with the defaults, and opens its gateway', async () => {
    const created = resultOf(await run(`/vm-create ${app}`), 'vm.created');
    id = String(created.containerId);
    const sandbox = memory().sandboxes.get(id)!;
    expect(sandbox.running).toBe(true);
    expect(sandbox.spec).toMatchObject({ id, repoUrl: app, image: 'cadre-sandbox:memory', limits: { memoryBytes: created.memoryBytes, cpus: created.cpus } });
    expect(memory().workspaces.get(id)).toMatchObject({ clonedFrom: app, complete: true });
    expect(await exists(join(runDir(), id, 'gateway.sock'))).toBe(true);
    expect(cadre.runtime.session.view().currentContainer).toBe(id);
    const listed = resultOf(await run('/vm-status'), 'vm.list');
    expect(listed.containers).toEqual([expect.objectContaining({ id, state: 'running', repoUrl: app, heldBy: 'this cadre' })]);
  });

  it('/vm-restart while a task waits on the container: the wait lasts until the restarted container is ready, then counts the restart', async () => {
    const vm = await engine();
    const held = memory().holdRestarts();
    const restarting = run(`/vm-restart ${id} --force`);
    await until(() => memory().calls.includes(`restart ${id}`), 'the restart to reach the backend');
    // What a vm-agent attempt does before it starts its runner again (agents/vm/attempt.ts).
    let waited: number | undefined;
    const waiting = vm.afterRestart(id).then((generation) => (waited = generation));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(waited).toBeUndefined();
    held.release();
    await waiting;
    expect(waited).toBe(1);
    expect(vm.restarts(id)).toBe(1);
    await restarting;
    expect(memory().sandboxes.get(id)).toMatchObject({ running: true, restarts: 1 });
    expect(await exists(join(runDir(), id, 'gateway.sock'))).toBe(true);
  });

  it('/vm-config on the running container changes its limits through the backend, keeps the new deadline, and its gateway takes the new rules', async () => {
    const limits = resultOf(await run(`/vm-config ${id} --memory 768MB --cpu 1.5 --pids 300`), 'vm.config');
    expect(limits).toMatchObject({ changed: ['memoryBytes', 'cpus', 'pids'] });
    expect(memory().sandboxes.get(id)!.spec.limits).toMatchObject({ memoryBytes: 768 * mb, cpus: 1.5, pids: 300 });

    const before = Date.now();
    await run(`/vm-config ${id} --timeout 90`);
    expect(memory().workspaces.get(id)!.deadline).toBeGreaterThanOrEqual(before + 90 * 60_000);
    expect((await (await engine()).record(id)).deadline).toBe(memory().workspaces.get(id)!.deadline);

    // The gateway's egress rules, seen from inside the container through the real forwarder on its socket.
    const forwarder = await startForwarder({ socketPath: join(runDir(), id, 'gateway.sock'), modelPort: 0, proxyPort: 0 });
    try {
      const since = new Date();
      expect(await connectThrough(forwarder.proxyPort, 'allowed.invalid:443')).toMatch(/^HTTP\/1\.1 403/);
      await run(`/vm-config ${id} --allowed-domains "allowed.invalid"`);
      // Allowed now: refused only because the name never resolves (RFC 6761), so nothing leaves this machine.
      expect(await connectThrough(forwarder.proxyPort, 'allowed.invalid:443')).toMatch(/^HTTP\/1\.1 (403|502)/);
      await run(`/vm-config ${id} --network-isolation`);
      expect(await connectThrough(forwarder.proxyPort, 'allowed.invalid:443')).toMatch(/^HTTP\/1\.1 403/);
      const rules = (await (await engine()).refusedSince(id, since)).map((refusal) => refusal.rule);
      expect(rules).toEqual(['not-allowlisted', 'dns', 'network-isolation']);
    } finally {
      await forwarder.close();
    }
  });

  it('/vm-cleanup leaves the backend empty: no sandbox, no workspace, no gateway folder, and the session forgets it', async () => {
    await run(`/vm-cleanup ${id} --yes`);
    expect(memory().sandboxes.size).toBe(0);
    expect(memory().workspaces.size).toBe(0);
    expect(memory().services.running.size).toBe(0);
    expect(await readdir(cadre.paths.workspacesDir).catch(() => [])).toEqual([]);
    expect(await exists(join(runDir(), id))).toBe(false);
    expect(cadre.runtime.session.view().containers).not.toContain(id);
  });
});
