// vm-agent's lifecycle on a Docker engine on "another machine" (the shared second dockerd, reached over TCP+mTLS, blind to
// cadre's files), with real cadre processes: the warm pool there (spares refilled with the asked repository at its HEAD),
// the start-up sweep of a killed process's spares with their volumes (another installation's left alone), re-attach after
// kill -9 (gateway tunnel reopened, /vm-status and a vm-agent task on it), a deadline moved by /vm-config reaching the
// sandbox's own init, and /vm-status and /vm-cleanup reading a remote workspace's changes. One installation's containers
// serve every check, to keep the file short.
import { execFileSync } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stripVTControlCharacters } from 'node:util';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { runCli, tempProject } from '../support/cli.js';
import { testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { describeRemoteEngine, engineSideClient, sharedRemoteEngine, type RemoteEngine } from '../support/remote-engine.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-remote-lifecycle-0123456789-NEVER-IN-CONTAINER';
const said = (events: JsonEvent[]): string => stripVTControlCharacters(events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n'));

/** Runs `cmd` in a container on the engine as the sandbox user (the test's own look inside, never cadre's). */
async function execOn(side: Docker, engineId: string, cmd: string[]): Promise<{ out: string; code: number }> {
  const exec = await side.getContainer(engineId).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: '1000:1000', WorkingDir: '/workspace' });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise((resolve) => stream.on('end', resolve));
  // The multiplexed stream: 8-byte frame headers before each chunk of output.
  const raw = Buffer.concat(chunks);
  let out = '';
  for (let at = 0; at + 8 <= raw.length;) {
    const size = raw.readUInt32BE(at + 4);
    out += raw.subarray(at + 8, at + 8 + size).toString('utf8');
    at += 8 + size;
  }
  return { out: out.trim(), code: (await exec.inspect()).ExitCode ?? -1 };
}

/** Polls `check` until it gives a value (not undefined), or fails with `what`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** Adds a commit to bare repository `bare` (the git server's), changing `file`; its id. */
function pushCommit(bare: string, file: string, text: string): string {
  const work = mkdtempSync(join(tmpdir(), 'cadre-lifecycle-push-'));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };
  const git = (args: string[]): string => execFileSync('git', args, { cwd: work, env, encoding: 'utf8' }).trim();
  git(['clone', '-q', bare, '.']);
  execFileSync('sh', ['-c', `printf '%s\\n' "$1" > "$2"`, 'sh', text, file], { cwd: work });
  git(['commit', '-qam', `change ${file}`]);
  git(['push', '-q', 'origin', 'HEAD:main']);
  const head = git(['rev-parse', 'HEAD']);
  execFileSync('rm', ['-rf', work]);
  return head;
}

describeRemoteEngine('vm-agent lifecycle on a remote Docker engine', () => {
  let engine: RemoteEngine;
  let side: Docker;
  let gitServer: GitServer;
  let model: ModelServer;
  let home = '';
  let project = '';
  let otherHome = '';
  let otherProject = '';
  let env: Record<string, string> = {};
  const disposals: (() => void)[] = [];
  const repoA = 'remote/fastify-demo';
  const repoB = 'remote/prisma-rest-express';
  // Shared between the checks: the containers of this installation, and the processes.
  let deadlined = '';
  let askedAt = 0;
  let movedAt = 0;
  const pooled: string[] = [];
  let cadre: PipedCadre | undefined;
  let resumed: PipedCadre | undefined;

  const engineIdOf = async (id: string, of = home): Promise<string | undefined> => (await side.listContainers({ all: true, filters: { label: [`cadre.container=${id}`, `cadre.home=${of}`] } }))[0]?.Id;
  /** This installation's untaken warm-pool spares on the engine, running. */
  const spares = async (of: string): Promise<{ id: string; engineId: string }[]> =>
    (await side.listContainers({ filters: { label: ['cadre.pool', `cadre.home=${of}`] } })).map((c) => ({ id: c.Labels['cadre.container']!, engineId: c.Id }));
  const volumesOf = async (of: string): Promise<string[]> => ((await side.listVolumes({ filters: { label: [`cadre.home=${of}`] } })).Volumes ?? []).map((v) => v.Name);
  const headIn = async (engineId: string): Promise<string> => (await execOn(side, engineId, ['git', 'rev-parse', 'HEAD'])).out;
  /** The pool of `process` once it has a spare ready (as /vm-status says); with `commit`, one whose workspace holds it. */
  const spareReady = (process: PipedCadre, of: string, commit?: string) => until(`a spare${commit ? ` holding ${commit}` : ''}`, async () => {
    const listed = await process.run('/vm-status', resultOrError('vm.list'));
    if (((listed.data?.pool as { ready?: number } | null)?.ready ?? 0) < 1) return undefined;
    for (const spare of await spares(of)) if (!commit || (await headIn(spare.engineId).catch(() => '')) === commit) return spare;
    return undefined;
  }, 180_000);

  beforeAll(async () => {
    await ensureSandboxImage(testDocker());
    engine = await sharedRemoteEngine();
    side = engineSideClient(engine);
    gitServer = await startGitServer();
    for (const [name, corpus] of [[repoA, 'fastify-demo'], [repoB, 'prisma-rest-express']] as const) {
      const copy = unpackCorpus(corpus);
      disposals.push(copy.dispose);
      await gitServer.createRepo(name, filesOf(copy.root));
    }
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          { toolCalls: [{ name: 'run-command', input: { command: 'git log -1 --format=%s' } }], usage: { inputTokens: 100, outputTokens: 10 } },
          { text: 'The last commit is read.', usage: { inputTokens: 100, outputTokens: 10 } },
        ],
      },
    });
    ({ project, home } = await tempProject('cadre-remote-life-'));
    ({ project: otherProject, home: otherHome } = await tempProject('cadre-remote-life-other-'));
    env = { ...engine.env, ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };

    // The deadline check's sandbox first, so its minute runs while the other checks do. It is the other installation's: its cadre
    // exits (normally) at once, and no process of that installation starts (and sweeps) until it has ended, so only the
    // sandbox's own init can end it.
    const first = startPipedCadre(otherProject, otherHome, env);
    // The first /vm-create on the engine ships the sandbox image there when no earlier test of the run did (minutes under load).
    const created = await first.run(`/vm-create ${gitServer.repoUrl(repoA)}`, resultOrError('vm.created'), sandboxBuildTimeoutMs);
    expect(created.type, JSON.stringify(created)).toBe('output.result');
    deadlined = String(created.data?.containerId);
    askedAt = Date.now();
    const moved = await first.run(`/vm-config ${deadlined} --timeout 1`, resultOrError('vm.config'));
    movedAt = Date.now();
    expect(moved.type, JSON.stringify(moved)).toBe('output.result');
    first.end();
    await first.exited;
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const process of [cadre, resumed]) if (process && process.child.exitCode === null) process.child.kill('SIGKILL');
    // What is left of both installations, removed from the engine directly (the checks below say what cadre should have done).
    for (const of of [home, otherHome].filter(Boolean)) {
      for (const c of await side.listContainers({ all: true, filters: { label: [`cadre.home=${of}`] } })) await side.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined);
      for (const name of await volumesOf(of)) await side.getVolume(name).remove({ force: true }).catch(() => undefined);
    }
    await Promise.all([gitServer?.close(), model?.close()]);
    for (const dispose of disposals) dispose();
    for (const dir of [home, project, otherHome, otherProject].filter(Boolean)) await rm(dir, { recursive: true, force: true });
  });

  it('pooled /vm-create there: the spare is refilled with the asked repository at its HEAD, nothing of another; a killed process\'s spares go with their volumes at the next start, another installation\'s stay', async () => {
    cadre = startPipedCadre(project, home, env);
    const other = startPipedCadre(otherProject, otherHome, env);
    expect((await cadre.run('/vm-config --warm-pool 1')).type).toBe('output.result');
    expect((await other.run('/vm-config --warm-pool 1')).type).toBe('output.result');
    const empty = await spareReady(cadre, home);

    // The empty spare becomes the first /vm-create's; the next spare is prepared for that repository.
    const first = await createContainer(cadre, gitServer.repoUrl(repoA));
    expect(first, 'the spare was taken').toBe(empty.id);
    pooled.push(first);
    const headA = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: gitServer.repoPath(repoA), encoding: 'utf8' }).trim();
    const preparedA = await spareReady(cadre, home, headA);

    // A push since the spare was filled: the take gives the new HEAD, not the prepared one.
    const newHeadA = pushCommit(gitServer.repoPath(repoA), 'README.md', 'moved on');
    const second = await createContainer(cadre, gitServer.repoUrl(repoA));
    expect(second).toBe(preparedA.id);
    pooled.push(second);
    expect(await headIn(preparedA.engineId)).toBe(newHeadA);
    expect((await execOn(side, preparedA.engineId, ['git', 'status', '--porcelain', '--ignored', '--untracked-files=all'])).out).toBe('');

    // A spare prepared for A, taken for B: B at its HEAD, nothing of A's left.
    const preparedAgain = await spareReady(cadre, home, newHeadA);
    const headB = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: gitServer.repoPath(repoB), encoding: 'utf8' }).trim();
    const third = await createContainer(cadre, gitServer.repoUrl(repoB));
    expect(third).toBe(preparedAgain.id);
    pooled.push(third);
    expect(await headIn(preparedAgain.engineId)).toBe(headB);
    expect((await execOn(side, preparedAgain.engineId, ['git', 'remote', 'get-url', 'origin'])).out).toBe(gitServer.repoUrl(repoB));
    expect((await execOn(side, preparedAgain.engineId, ['ls', '-A', '/workspace'])).out.split('\n')).not.toContain('migrations');
    expect((await execOn(side, preparedAgain.engineId, ['git', 'status', '--porcelain', '--ignored', '--untracked-files=all'])).out).toBe('');
    expect((await cadre.run('/save remote-life', (e) => e.type === 'output.message' && String(e.text).startsWith('Saved'))).type).toBe('output.message');

    // Both processes die with a spare each on the engine.
    const [mine, theirs] = await Promise.all([spareReady(cadre, home), spareReady(other, otherHome)]);
    cadre.child.kill('SIGKILL');
    other.child.kill('SIGKILL');
    await Promise.all([cadre.exited, other.exited]);
    expect(await volumesOf(home)).toContain(`cadre-ws-${(await readFile(join(home, 'installation.json'), 'utf8').then((t) => JSON.parse(t) as { id: string })).id}-${mine!.id}`);

    // The next start in this installation sweeps its dead process's spare, container and volume; the other installation's stay.
    resumed = startPipedCadre(project, home, env);
    await resumed.run('/status', (e) => e.type === 'output.result');
    await until('the dead spare swept', async () => ((await engineIdOf(mine!.id)) ? undefined : true));
    await until('its volume swept', async () => ((await volumesOf(home)).some((name) => name.endsWith(`-${mine!.id}`)) ? undefined : true), 30_000);
    expect((await spares(otherHome)).map((s) => s.id)).toEqual([theirs!.id]);
    expect((await volumesOf(otherHome)).some((name) => name.endsWith(`-${theirs!.id}`))).toBe(true);
  }, 900_000);

  it('kill -9 with running sandboxes there: the next process re-attaches them (tunnel reopened), /vm-status and a vm-agent task work', async () => {
    const process = resumed!;
    const from = process.events.length;
    const loaded = await process.run('/resume remote-life', (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith(`Re-attached ${pooled[0]}`)), 120_000);
    expect(loaded.type, said(process.events.slice(from))).toBe('output.message');
    expect(String(loaded.text)).toContain('running; its gateway is open');
    const status = await process.run(`/vm-status ${pooled[0]}`, resultOrError('vm.status'));
    expect(status.data, JSON.stringify(status)).toMatchObject({ gatewayOpen: true, machineState: 'running' });
    // It came from the warm pool: with no cadre holding it, its own init would end it at the session's deadline, not the pool's day.
    const listed = await process.run('/vm-status', resultOrError('vm.list'));
    const deadline = ((listed.data?.containers ?? []) as { id: string; deadline: string }[]).find((c) => c.id === pooled[0])?.deadline ?? '';
    expect((await execOn(side, (await engineIdOf(pooled[0]!))!, ['cat', '/run/cadre/deadline'])).out).toBe(String(Math.ceil(Date.parse(deadline) / 1000)));
    const started = process.events.length;
    const finished = await process.run(`/agent vm-agent "Say what the last commit is" --container ${pooled[0]}`, (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 300_000);
    const output = said(process.events.slice(started));
    expect(finished.type, output.slice(-3000)).toBe('output.message');
    expect(output).toContain('initial commit');
  }, 600_000);

  it('/vm-status and /vm-cleanup read a remote workspace\'s changes through the engine', async () => {
    const process = resumed!;
    const [changedId, cleanId] = [pooled[1]!, pooled[2]!];
    expect((await execOn(side, (await engineIdOf(changedId))!, ['sh', '-c', 'echo draft > NOTES.md'])).code).toBe(0);
    const listed = await process.run('/vm-status', resultOrError('vm.list'));
    const containers = (listed.data?.containers ?? []) as { id: string; changes: { state: string; uncommitted: number } }[];
    expect(containers.find((c) => c.id === changedId)?.changes, JSON.stringify(listed.data)).toMatchObject({ state: 'changed', uncommitted: 1 });
    expect(containers.find((c) => c.id === cleanId)?.changes).toMatchObject({ state: 'clean' });
    for (const id of [changedId, cleanId]) {
      const cleaned = await process.run(`/vm-cleanup ${id} --yes`, (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).includes('is removed')), 120_000);
      expect(cleaned.type, JSON.stringify(cleaned)).toBe('output.message');
    }
    const audit = (await Promise.all((await readdir(join(home, 'audit'))).filter((f) => f.endsWith('.jsonl')).map((f) => readFile(join(home, 'audit', f), 'utf8')))).join('\n');
    const cleanups = audit.split('\n').filter((line) => line.includes('container.cleaned-up'));
    expect(cleanups.find((line) => line.includes(changedId))).toContain('"workspaceChanges":"changed"');
    expect(cleanups.find((line) => line.includes(cleanId))).toContain('"workspaceChanges":"clean"');
  }, 300_000);

  it('/vm-config --timeout reaches the init already running there: the sandbox ends itself at the new time with no cadre holding it', async () => {
    const engineId = (await engineIdOf(deadlined, otherHome))!;
    // Well past the new deadline (a minute after /vm-config) plus the init's 30 s of grace; the sandbox was made for 30 minutes.
    await Promise.race([side.getContainer(engineId).wait(), sleep(Math.max(0, movedAt + 105_000 - Date.now()))]);
    const { State } = await side.getContainer(engineId).inspect();
    expect(State.Running, 'still running past the moved deadline').toBe(false);
    expect(State.ExitCode).toBe(124);
    const ended = Date.parse(State.FinishedAt);
    // The new deadline was set between askedAt and movedAt (a minute on), and the init ends it 30 s of grace after that,
    // checking every 2 s: bounds taken from both ends, so a slow /vm-config round trip on a loaded machine cannot cross them.
    expect(ended - askedAt).toBeGreaterThan(89_000);
    expect(ended - movedAt).toBeLessThan(100_000);
    const logs = (await side.getContainer(engineId).logs({ stdout: true, stderr: true })).toString('utf8');
    expect(logs).toContain('passed its deadline');
    const process = resumed!;
    const cleaned = await process.run(`/vm-cleanup ${pooled[0]} --yes`, (e) => e.type === 'output.error' || (e.type === 'output.message' && /is removed/.test(String(e.text))), 120_000);
    expect(cleaned.type, JSON.stringify(cleaned)).toBe('output.message');
    process.end();
    await process.exited;
    // The other installation's next start sweeps its own dead spare, and removes the timed-out sandbox; then nothing of either is left.
    const otherCleanup = await runCli(['-c', `/vm-cleanup ${deadlined} --yes`], { cwd: otherProject, home: otherHome, env });
    expect(otherCleanup.stdout + otherCleanup.stderr).toContain(`${deadlined} is removed`);
    await until('the other installation swept', async () => ((await spares(otherHome)).length === 0 && (await volumesOf(otherHome)).length === 0 ? true : undefined), 60_000);
    for (const of of [home, otherHome]) {
      expect(await side.listContainers({ all: true, filters: { label: [`cadre.home=${of}`] } })).toEqual([]);
      expect(await volumesOf(of)).toEqual([]);
    }
  }, 300_000);
});
