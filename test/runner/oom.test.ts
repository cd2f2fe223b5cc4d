// Real Docker: a test command that allocates past a 256 MB container's memory is what the kernel kills; the runner lives,
// tells the model and the host, and /vm-status keeps the OOM with its remedy.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runVmAttempt } from '../../src/agents/vm/supervise.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { newContainerId } from '../../src/container/labels.js';
import { readOomKills, recordOom } from '../../src/container/oom.js';
import { startContainer } from '../../src/container/start.js';
import { containerStatus, formatContainerStatus } from '../../src/container/status.js';
import { prepareWorkspace, sandboxUser, type Workspace } from '../../src/container/workspace.js';
import type { RunnerEvent } from '../../src/runner/events.js';
import { containerGatewaySocket } from '../../src/runner/forwarder.js';
import { realKey, startHarness, type Harness } from '../gateway/harness.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { buildRunnerBundle } from './support.js';

const mb = 1024 ** 2;
/**
 * The project's own test script: like a runner with parallel workers, six processes each keep growing (tail holds the one
 * endless line) until something stops them; each stays smaller than vm-agent's runner, which the kernel would pick first.
 */
const hungryTest = 'for i in 1 2 3 4 5 6; do (head -c 400M /dev/zero | tail -n 1 > /dev/null) & done; wait; exit 1';

describeDocker('out of memory in a 256 MB sandbox container', () => {
  const docker = testDocker();
  const id = newContainerId();
  let bundle: string;
  let workspacesDir: string;
  let workspace: Workspace;
  let model: ModelServer;
  let gateway: Harness;
  let dockerId = '';

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    bundle = await buildRunnerBundle();
    chmodSync(bundle, 0o755);
    model = await startModelServer({
      requiredApiKey: realKey,
      script: {
        turns: [
          { text: 'Running the tests.', toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }] },
          { text: 'The tests ran out of memory; the container needs more.' },
        ],
      },
    });
    gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true } });
    workspacesDir = mkdtempSync(join(tmpdir(), 'cadre-workspaces-'));
    workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    writeFileSync(join(workspace.dir, 'package.json'), `${JSON.stringify({ name: 'hungry', version: '1.0.0', scripts: { test: hungryTest } }, null, 2)}\n`);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: workspace.dir, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    execFileSync('chown', ['-R', `${sandboxUser.uid}:${sandboxUser.gid}`, workspace.dir]);
    ({ dockerId } = await startContainer({
      docker,
      spec: {
        id, session: 'oom-test', installation: { id: 'test', home: workspacesDir }, repoUrl: 'http://127.0.0.1/app.git', image, workspace,
        limits: { memoryBytes: 256 * mb, cpus: 1, pids: 128, diskBytes: 64 * mb, timeoutMinutes: 10 },
        binds: [`${bundle}:/opt/cadre:ro`, `${gateway.socketPath}:${containerGatewaySocket}`],
        command: ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'],
      },
    }));
    for (let tries = 0; tries < 100; tries += 1) {
      if ((await docker.getContainer(dockerId).logs({ stdout: true, stderr: true })).toString('utf8').includes('modelPort')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUp({ docker, id, workspace, deleteWorkspace: true }).catch(() => undefined);
    await gateway?.close();
    await model?.close();
    if (workspacesDir) rmSync(workspacesDir, { recursive: true, force: true });
    if (bundle) rmSync(bundle, { recursive: true, force: true });
  });

  it('kills the test, not the runner: the attempt finishes, the model and the host are told, /vm-status keeps it with the remedy', async () => {
    const events: RunnerEvent[] = [];
    const result = await runVmAttempt({
      docker, containerDockerId: dockerId, task: 'Run the tests', onEvent: () => undefined, onRunnerEvent: (event) => events.push(event),
      env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100' },
    });
    expect(result.summary).toBe('The tests ran out of memory; the container needs more.');
    expect(events).toContainEqual({ type: 'resource.oom', command: 'npm test', kills: expect.any(Number), limitBytes: 256 * mb });
    const toolResult = events.find((event) => event.type === 'tool.result');
    expect(toolResult).toMatchObject({ ok: false, display: expect.stringMatching(/^npm test → .*the container ran out of memory \(limit 256 MB\) and the kernel killed \d+ of its processes$/) });
    // What the model was told on its second turn.
    expect(JSON.stringify(model.requests[1]?.body)).toContain('Do not run it again as it is');

    const kills = await readOomKills(docker, dockerId);
    expect(kills).toBeGreaterThanOrEqual(1);
    await recordOom(workspace.root, { kills: kills!, command: 'npm test', limitBytes: 256 * mb });
    const status = await containerStatus({ docker, id });
    expect(status.state).toBe('running');
    expect(status.oom).toMatchObject({ kills, command: 'npm test', remedy: expect.stringContaining(`/vm-config --container ${id} --memory 512MB`) });
    expect(formatContainerStatus(status)).toMatch(/memory {6}ran out: \d+ process\(es\) killed, the last at .* during `npm test` \(limit 256MB\); give it more memory with \/vm-config --container vm-\w+ --memory 512MB/);
  });
});
