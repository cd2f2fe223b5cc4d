// Real Docker: runVmAttempt execs the bundled runner in a sandbox container (no network, read-only root, /opt/cadre read-only),
// which reaches the scripted model only through the gateway's socket: directly, as cadre starts it, or through the
// in-container forwarder (the base URL every other client in the container is given).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runVmAttempt } from '../../src/agents/vm/supervise.js';
import type { OutputEvent } from '../../src/output.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { newContainerId } from '../../src/container/labels.js';
import { startContainer } from '../../src/container/start.js';
import { prepareWorkspace, sandboxUser, type Workspace } from '../../src/container/workspace.js';
import { CadreError } from '../../src/errors.js';
import { containerGatewaySocket } from '../../src/runner/forwarder.js';
import { realKey, startHarness, type Harness } from '../gateway/harness.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { buildRunnerBundle } from './support.js';

const mb = 1024 ** 2;
const slowTurn = { text: 'working '.repeat(400), chunkDelayMs: 50 };

describeDocker('vm-agent attempts in a real sandbox container', () => {
  const docker = testDocker();
  const id = newContainerId();
  let bundle: string;
  let workspacesDir: string;
  let workspace: Workspace;
  let model: ModelServer;
  let gateway: Harness;
  let dockerId = '';
  let env: Record<string, string>;

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    bundle = await buildRunnerBundle();
    chmodSync(bundle, 0o755);
    model = await startModelServer({
      requiredApiKey: realKey,
      script: {
        turns: [
          {
            text: 'Changing the greeting.',
            toolCalls: [
              { name: 'edit-file', input: { path: '/workspace/src/greet.js', search: 'Hello', replace: 'Hi' } },
              { name: 'run-command', input: { command: 'git status --short' } },
            ],
          },
          { toolCalls: [{ name: 'run-command', input: { command: 'sudo chmod 777 /workspace' } }] },
          { text: 'Greeting changed; sudo was refused, as expected.', usage: { inputTokens: 300, outputTokens: 12 } },
          slowTurn,
          slowTurn,
        ],
      },
    });
    gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true } });
    workspacesDir = mkdtempSync(join(tmpdir(), 'cadre-workspaces-'));
    workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    mkdirSync(join(workspace.dir, 'src'));
    writeFileSync(join(workspace.dir, 'src/greet.js'), 'export const greet = () => "Hello";\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: workspace.dir, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    execFileSync('chown', ['-R', `${sandboxUser.uid}:${sandboxUser.gid}`, workspace.dir]);
    ({ dockerId } = await startContainer({
      docker,
      spec: {
        id, session: 'runner-test', installation: { id: 'test', home: workspacesDir }, repoUrl: 'http://127.0.0.1/app.git', image, workspace,
        limits: { memoryBytes: 512 * mb, cpus: 1, pids: 128, diskBytes: 64 * mb, timeoutMinutes: 10 },
        binds: [`${bundle}:/opt/cadre:ro`, `${gateway.socketPath}:${containerGatewaySocket}`],
        command: ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'],
      },
    }));
    await forwarderListening(dockerId);
    env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100', CADRE_GATEWAY_SOCKET: containerGatewaySocket };
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUp({ docker, id, workspace, deleteWorkspace: true }).catch(() => undefined);
    await gateway?.close();
    await model?.close();
    if (workspacesDir) rmSync(workspacesDir, { recursive: true, force: true });
    if (bundle) rmSync(bundle, { recursive: true, force: true });
  });

  async function forwarderListening(container: string): Promise<void> {
    for (let tries = 0; tries < 100; tries += 1) {
      const logs = await docker.getContainer(container).logs({ stdout: true, stderr: true });
      if (logs.toString('utf8').includes('modelPort')) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the forwarder did not start in the container');
  }

  async function failure(attempt: Promise<unknown>): Promise<CadreError> {
    const error = await attempt.then(() => undefined, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(CadreError);
    return error as CadreError;
  }

  it('edits the workspace, runs git, is refused sudo, and resolves with the summary; the person saw it live', async () => {
    const shown: OutputEvent[] = [];
    // The container's Node (18) talks to the gateway's socket itself: nothing listens at this base URL's port.
    const direct = { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:4109' };
    const result = await runVmAttempt({ docker, containerDockerId: dockerId, task: 'Say Hi', env: direct, onEvent: (event) => shown.push(event) });
    expect(result).toEqual({ summary: 'Greeting changed; sudo was refused, as expected.', usage: expect.objectContaining({ inputTokens: expect.any(Number) }) });
    expect(readFileSync(join(workspace.dir, 'src/greet.js'), 'utf8')).toBe('export const greet = () => "Hi";\n');
    const streamed = shown.flatMap((event) => (event.type === 'output.stream' ? [event.chunk] : [])).join('');
    expect(streamed).toContain('M src/greet.js');
    const said = shown.flatMap((event) => (event.type === 'output.message' ? [event.text] : []));
    expect(said[0]).toMatch(/^vm-agent started \(attempt 1, anthropic claude-test\) in \/workspace$/);
    expect(said).toContain('Changing the greeting.');
    expect(said.some((line) => /policy denied the command sudo chmod 777 \/workspace: .*\(policy\.blocked\.sudo/.test(line))).toBe(true);
    expect(gateway.audit.filter((entry) => entry.type === 'gateway.call').map((entry) => entry.data.status)).toEqual([200, 200, 200]);
  });

  it('a cancelled attempt stops its runner in the container and rejects, sparing a runner started after it', async () => {
    const container = docker.getContainer(dockerId);
    // Stands for the next task's runner, started while this attempt is being cancelled (its argv names the runner too).
    const bystander = "setTimeout(() => {}, 60000) // next-task-runner";
    const findBystanders = "const fs = require('fs'); for (const pid of fs.readdirSync('/proc')) { if (!/^\\d+$/.test(pid) || Number(pid) === process.pid) continue; " +
      "try { if (fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes('next-task-' + 'runner')) console.log(pid); } catch {} }";
    const runningBystanders = async () => (await execIn(docker, container, ['node', '-e', findBystanders])).stdout.trim();
    const controller = new AbortController();
    const attempt = runVmAttempt({
      docker, containerDockerId: dockerId, task: 'Take your time', attempt: 2, env, signal: controller.signal,
      onEvent: (event) => {
        if (event.type !== 'output.message' || !event.text.startsWith('vm-agent started')) return;
        void (async () => {
          const exec = await container.exec({ Cmd: ['node', '-e', bystander, '/opt/cadre/cadre-runner.mjs'] });
          await exec.start({ Detach: true });
          while (!(await runningBystanders())) await new Promise((resolve) => setTimeout(resolve, 50));
          controller.abort();
        })();
      },
    });
    expect((await failure(attempt)).code).toBe('runner.cancelled');
    expect(await runningBystanders()).not.toBe('');
    await execIn(docker, container, ['node', '-e', `for (const pid of ${JSON.stringify((await runningBystanders()).split('\n'))}) process.kill(Number(pid))`]);
  });

  it('a container killed mid-task is a failed attempt whose cause names the lost container', async () => {
    const attempt = runVmAttempt({
      docker, containerDockerId: dockerId, task: 'Take your time', attempt: 3, env,
      onEvent: (event) => {
        if (event.type === 'output.message' && event.text.startsWith('vm-agent started')) void docker.getContainer(dockerId).kill();
      },
    });
    const error = await failure(attempt);
    expect(error.code).toBe('vm-agent.container-lost');
    expect(error.message).toMatch(/^The container stopped while vm-agent was working \(exited, exit code 137\)\.$/);
    const again = await failure(runVmAttempt({ docker, containerDockerId: dockerId, task: 'x', env, onEvent: () => undefined }));
    expect(again.code).toBe('vm-agent.container-not-running');
  });
});
