// Nothing lost, with real Docker and the real CLI: containers and workspaces belong to their installation and outlive the cadre
// process. Two installations on one engine, `-c` create then `-c` agent in a later process, kill -9 during a task then resume.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject, type CliRun } from '../support/cli.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';
import { keys, startInPty } from '../support/pty.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { startPipedCadre, type JsonEvent } from './vm-cadre.js';

const modelKey = 'sk-ant-ownership-key-0123456789';
// A test suite that never ends: the task is busy in the container until its runner is stopped.
const hangingTest = 'node -e "console.log(\'suite started\'); setTimeout(() => {}, 600000)"';

// The sandbox image has no ps: count the processes whose command line runs the vm-agent runner, through /proc.
const countRunners = "const fs = require('fs'); console.log(fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).filter((n) => { try { return fs.readFileSync('/proc/' + n + '/cmdline', 'utf8').split('\\0').some((a) => a.endsWith('cadre-runner.mjs')); } catch { return false; } }).length)";
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
const events = (run: CliRun): JsonEvent[] => run.stdout.trim().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent);
const created = (run: CliRun): string => {
  const found = events(run).find((e) => e.kind === 'vm.created');
  if (!found) throw new Error(`/vm-create failed: ${run.stdout}${run.stderr}`);
  return String(found.data?.containerId);
};

describeDocker('containers belong to their installation and outlive cadre', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  const models: ModelServer[] = [];
  const made: { home: string; id: string }[] = [];
  /** A model server of its own for one test (the script is served in order), and the environment pointing cadre at it. */
  const scriptedModel = async (turns: ModelScript['turns']): Promise<Record<string, string>> => {
    const model = await startModelServer({ requiredApiKey: modelKey, script: { turns } });
    models.push(model);
    return { ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
  };

  /** The engine state of cadre container `id` of `home`, or null when it is gone. */
  const engineState = async (home: string, id: string): Promise<{ running: boolean; dockerId: string } | null> => {
    const [found] = (await docker.listContainers({ all: true, filters: { label: [`cadre.container=${id}`] } })).filter((c) => c.Labels['cadre.workspace']?.startsWith(home));
    return found ? { running: found.State === 'running', dockerId: found.Id } : null;
  };

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/kept', {
      'package.json': JSON.stringify({ name: 'kept', version: '1.0.0', scripts: { test: hangingTest } }),
      'README.md': '# kept\n',
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const { home, id } of made) await runCli(['-c', `/vm-cleanup ${id} --yes`], { cwd: home, home }).catch(() => undefined);
    await Promise.all([gitServer?.close(), ...models.map((model) => model.close())]);
  });

  it('another installation\'s start, /vm-cleanup and /vm-restart leave a container and its workspace alone', async () => {
    const first = await tempProject('cadre-own-a-');
    const second = await tempProject('cadre-own-b-');
    const id = created(await runCli(['--json', '-c', `/vm-create ${gitServer.repoUrl('acme/kept')}`], { cwd: first.project, home: first.home }));
    made.push({ home: first.home, id });
    const before = await engineState(first.home, id);
    expect(before?.running, 'the container outlives the -c run that made it').toBe(true);
    await execIn(docker, docker.getContainer(before?.dockerId ?? ''), ['sh', '-c', 'echo uncommitted > /workspace/WORK.md']);

    // An ordinary start of the other installation, then its attempts at the foreign container.
    expect((await runCli(['-c', '/status'], { cwd: second.project, home: second.home })).code).toBe(0);
    const cleanup = await runCli(['--json', '-c', `/vm-cleanup ${id} --yes`], { cwd: second.project, home: second.home });
    expect(cleanup.code).toBe(1);
    expect(events(cleanup).find((e) => e.type === 'output.error')).toMatchObject({ code: 'vm.foreign-container', message: expect.stringContaining(first.home) });
    const unknown = await runCli(['-c', '/vm-status vm-zzzz'], { cwd: second.project, home: second.home });
    expect(unknown.stderr, 'an unknown id names no other installation\'s container').not.toContain(id);
    const restart = await runCli(['--json', '-c', `/vm-restart ${id}`], { cwd: second.project, home: second.home });
    expect(events(restart).find((e) => e.type === 'output.error')).toMatchObject({ code: 'vm.foreign-container' });

    expect((await engineState(first.home, id))?.running).toBe(true);
    expect(await readFile(join(first.home, 'workspaces', id, 'workspace', 'WORK.md'), 'utf8')).toBe('uncommitted\n');
    // Its own installation's next start keeps it too, and lists it with its unpushed change.
    const listed = await runCli(['--json', '-c', '/vm-status'], { cwd: first.project, home: first.home });
    const list = events(listed).find((e) => e.kind === 'vm.list');
    expect(list?.data?.containers, listed.stdout + listed.stderr).toEqual([expect.objectContaining({ id, state: 'running', changes: expect.objectContaining({ state: 'changed' }) })]);
  }, 300_000);

  it('-c /vm-create, then -c /agent vm-agent --container <id> in a later cadre process works there', async () => {
    const { project, home } = await tempProject('cadre-own-c-');
    const modelEnv = await scriptedModel([
      { text: 'Writing the notes.', toolCalls: [{ name: 'write-file', input: { path: '/workspace/NOTES.md', content: 'agent work\n' } }], usage: { inputTokens: 100, outputTokens: 10 } },
      { text: 'NOTES.md is written.', usage: { inputTokens: 100, outputTokens: 10 } },
    ]);
    const id = created(await runCli(['--json', '-c', `/vm-create ${gitServer.repoUrl('acme/kept')}`], { cwd: project, home, env: modelEnv }));
    made.push({ home, id });
    const agent = await runCli(['--json', '-c', `/agent vm-agent "write NOTES.md" --container ${id}`], { cwd: project, home, env: modelEnv });
    expect(agent.code, agent.stdout + agent.stderr).toBe(0);
    expect(events(agent).some((e) => e.type === 'output.message' && String(e.text).includes('NOTES.md is written'))).toBe(true);
    expect(await readFile(join(home, 'workspaces', id, 'workspace', 'NOTES.md'), 'utf8')).toBe('agent work\n');
    // The gateway of the -c run is gone with it, and no socket folder of a removed container stays behind.
    expect(await exists(join(home, 'run', id))).toBe(true);
  }, 300_000);

  it('kill -9 during a task: the container stays, the resumed session re-attaches it, stops the dead run\'s runner and runs a new task', async () => {
    const { project, home } = await tempProject('cadre-own-d-');
    const modelEnv = await scriptedModel([
      { text: 'Running the tests first.', toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 100, outputTokens: 10 } },
      { text: 'The README is fine as it is.', usage: { inputTokens: 100, outputTokens: 10 } },
    ]);
    const cadre = startPipedCadre(project, home, modelEnv);
    const createdEvent = await cadre.run(`/vm-create ${gitServer.repoUrl('acme/kept')}`, (e) => e.kind === 'vm.created' || e.type === 'output.error', 180_000);
    const id = String(createdEvent.data?.containerId);
    made.push({ home, id });
    expect((await cadre.run('/save crash-me', (e) => e.type === 'output.message' && String(e.text).startsWith('Saved'))).type).toBe('output.message');
    const from = cadre.events.length;
    cadre.child.stdin.write('/agent vm-agent "run the tests"\n');
    await cadre.next(from, (e) => e.type === 'output.stream' && String((e as { chunk?: string }).chunk).includes('suite started'), 120_000);
    cadre.child.kill('SIGKILL');
    await cadre.exited;

    const state = await engineState(home, id);
    expect(state?.running, 'kill -9 leaves the container running').toBe(true);
    const runners = async () => (await execIn(docker, docker.getContainer(state?.dockerId ?? ''), ['node', '-e', countRunners])).stdout.trim();
    expect(await runners()).toBe('1');

    const resumed = await runCli(['--json', '--resume', 'crash-me', '-c', '/status', '-c', `/agent vm-agent "look at the README" --container ${id}`, '-c', '/status'], { cwd: project, home, env: modelEnv });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const statuses = events(resumed).filter((e) => e.kind === 'status');
    expect(statuses[0]?.data).toMatchObject({ name: 'crash-me', tasks: [], containers: [id] });
    expect(events(resumed).some((e) => e.type === 'output.message' && String(e.text).includes('README is fine'))).toBe(true);
    expect(await runners()).toBe('0');
    expect(await engineState(home, id)).toMatchObject({ running: true });
  }, 300_000);

  it('kill -9 during /vm-create: the next start removes the half-made workspace and leaves no container', async () => {
    const { project, home } = await tempProject('cadre-own-e-');
    const child = spawn(process.execPath, [cadreBin, '-c', `/vm-create ${gitServer.repoUrl('acme/kept')}`], { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' }, stdio: 'ignore' });
    const workspaces = join(home, 'workspaces');
    let id: string | undefined;
    for (const deadline = Date.now() + 120_000; !id && Date.now() < deadline;) {
      id = (await readdir(workspaces).catch(() => [] as string[])).find((name) => existsSync(join(workspaces, name, 'creating.json')));
      if (!id) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    expect(id, 'the creation began').toBeDefined();
    made.push({ home, id: id ?? '' });
    expect(await engineState(home, id ?? ''), 'killed before the container existed').toBeNull();

    const next = await runCli(['-c', '/status'], { cwd: project, home });
    expect(next.stdout + next.stderr).toContain(`Removed the half-made workspace of ${id}`);
    expect(await exists(join(workspaces, id ?? ''))).toBe(false);
    const listed = events(await runCli(['--json', '-c', '/vm-status'], { cwd: project, home })).find((e) => e.kind === 'vm.list');
    expect(listed?.data).toMatchObject({ containers: [], orphanWorkspaces: [] });
  }, 300_000);

  it('kill -9 while the crash question is on screen: the container stays, the next start asks again and resuming re-attaches it', async () => {
    const { project, home } = await tempProject('cadre-own-f-');
    const env = { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
    const cadrePid = async (): Promise<number> => (JSON.parse(await readFile(join(project, '.cadre/sessions/.autosave.lock'), 'utf8')) as { pid: number }).pid;
    const prompt = `${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`;
    const first = startInPty(prompt, { cwd: project, env });
    let id = '';
    try {
      const at = await first.waitFor('cadre ›');
      first.type(`/vm-create ${gitServer.repoUrl('acme/kept')}${keys.enter}`);
      const shown = await first.waitFor(/Container vm-[0-9a-f]{4} is running/, { from: at, timeoutMs: 180_000 });
      id = /Container (vm-[0-9a-f]{4}) is running/.exec(first.screen())?.[1] ?? '';
      await first.waitFor('cadre ›', { from: shown });
      made.push({ home, id });
      process.kill(await cadrePid(), 'SIGKILL');
    } finally {
      first.kill();
    }
    const second = startInPty(prompt, { cwd: project, env });
    try {
      await second.waitFor('Resume it?', { timeoutMs: 30_000 });
      process.kill(await cadrePid(), 'SIGKILL');
    } finally {
      second.kill();
    }
    expect((await engineState(home, id))?.running, 'the container outlives both crashes').toBe(true);
    const third = startInPty(prompt, { cwd: project, env });
    try {
      let at = await third.waitFor('Resume it?', { timeoutMs: 30_000 });
      expect(third.screen().slice(0, at)).not.toMatch(/Removed|deleted/);
      third.type('y');
      at = await third.waitFor(`Re-attached ${id}`, { from: at, timeoutMs: 60_000 });
      at = await third.waitFor('cadre ›', { from: at });
      third.type(`/vm-status ${id}${keys.enter}`);
      at = await third.waitFor(/machine\s+running/, { from: at, timeoutMs: 60_000 });
      expect(third.screen().slice(at)).toMatch(/gateway\s+open/);
      third.type(`/exit${keys.enter}`);
      await third.exited;
    } finally {
      third.kill();
    }
  }, 420_000);
});
