// `cadre --trace` of /vm-create with real Docker: one actor tree under the cli root, the container's gateway a child of the
// container actor (opened on entering running), nothing created outside the system.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

type TraceRecord = { type: string; rootId: string; actorId: string; actor: string; parentId?: string; name?: string; value?: unknown };

describeDocker('--trace of /vm-create', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  const made: { home: string; project: string; id: string }[] = [];

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/traced', { 'package.json': JSON.stringify({ name: 'traced', version: '1.0.0' }), 'README.md': '# traced\n' });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const { home, project, id } of made) await runCli(['-c', `/vm-cleanup ${id} --yes`], { cwd: project, home }).catch(() => undefined);
    await gitServer?.close();
  });

  it('shows the container under the cli root and its gateway as the container\'s child', async () => {
    const { project, home } = await tempProject('cadre-trace-vm-');
    const traceFile = join(home, 'trace.jsonl');
    const run = await runCli(['--json', '--trace', traceFile, '-c', `/vm-create ${gitServer.repoUrl('acme/traced')}`], { cwd: project, home });
    const createdEvent = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { kind?: string; data?: { containerId?: string } }).find((event) => event.kind === 'vm.created');
    expect(createdEvent, run.stdout + run.stderr).toBeDefined();
    made.push({ home, project, id: String(createdEvent?.data?.containerId) });

    const records = (await readFile(traceFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as TraceRecord);
    const actors = records.filter((record) => record.type === '@xstate.actor');
    const root = actors.find((actor) => actor.parentId === undefined);
    expect(root?.name).toBe('cli');
    expect(new Set(records.map((record) => record.rootId)), 'every actor belongs to the one cli root').toEqual(new Set([root?.actorId]));
    expect(actors.filter((actor) => actor.parentId === undefined), 'exactly one root').toHaveLength(1);

    const container = actors.find((actor) => actor.name === 'container');
    expect(container, 'a container actor').toBeDefined();
    const gateway = actors.find((actor) => actor.parentId === container?.actorId && actor.actor === 'gateway');
    expect(gateway, `the gateway is a child of the container actor; children: ${JSON.stringify(actors.filter((actor) => actor.parentId === container?.actorId))}`).toBeDefined();
    // Its ancestors lead to the root.
    const byId = new Map(actors.map((actor) => [actor.actorId, actor]));
    let at: TraceRecord | undefined = gateway;
    const chain: string[] = [];
    while (at) {
      chain.push(at.name ?? at.actorId);
      at = at.parentId ? byId.get(at.parentId) : undefined;
    }
    expect(chain.at(-1)).toBe('cli');
  }, 300_000);
});
