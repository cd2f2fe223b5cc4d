// Real Docker, real sandbox image: a project's npm script, run by vm-agent, and a `docker exec` as the sandbox user hunt the
// container for the session JWT (every process's environ, memory, fds, ptrace, the runner's inspector, the file system)
// while the runner works, and try the gateway with whatever they find.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runVmAttempt } from '../../src/agents/vm/supervise.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { newContainerId } from '../../src/container/labels.js';
import { startContainer } from '../../src/container/start.js';
import { prepareWorkspace, sandboxUser, type Workspace } from '../../src/container/workspace.js';
import type { RunnerEvent } from '../../src/runner/events.js';
import { containerGatewaySocket } from '../../src/runner/forwarder.js';
import { realKey, startHarness, type Harness } from '../gateway/harness.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { buildRunnerBundle } from './support.js';

const mb = 1024 ** 2;
const hunter = fileURLToPath(new URL('./fixtures/token-hunt.mjs', import.meta.url));
/** A JWT-shaped string in an ordinary process's environment: the hunt must find it, or it proves nothing. */
const canary = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.Y2FuYXJ5LXNpZ25hdHVyZS1maWxsZXI';

interface HuntReport {
  uid: number;
  runners: number[];
  cmdlines: Record<string, string>;
  ptraceable: number[];
  inspectorOpen: boolean;
  found: Array<{ token: string; where: string }>;
  opened: string[];
  calls: Array<{ via: string; key: string | null; status: number | string }>;
}

describeDocker('the session credential, hunted from inside the container', () => {
  const docker = testDocker();
  const id = newContainerId();
  let bundle: string;
  let project: CorpusCopy;
  let workspacesDir: string;
  let workspace: Workspace;
  let model: ModelServer;
  let gateway: Harness;
  let dockerId = '';

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    bundle = await buildRunnerBundle();
    execFileSync('chmod', ['755', bundle]);
    model = await startModelServer({
      requiredApiKey: realKey,
      script: {
        turns: [
          { text: 'Running the tests.', toolCalls: [{ name: 'run-command', input: { command: 'npm test -- agent exec' } }] },
          { text: 'The tests ran.', usage: { inputTokens: 200, outputTokens: 5 } },
        ],
      },
    });
    gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true } });
    workspacesDir = mkdtempSync(join(tmpdir(), 'cadre-workspaces-'));
    workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    // A real project whose test script is the hunter (as a postinstall or a test of a cloned repository would be).
    project = unpackCorpus('vulnerable-node');
    cpSync(project.root, workspace.dir, { recursive: true });
    cpSync(hunter, join(workspace.dir, 'scripts', 'token-hunt.mjs'));
    const manifest = JSON.parse(readFileSync(join(workspace.dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    manifest.scripts.test = 'node scripts/token-hunt.mjs';
    writeFileSync(join(workspace.dir, 'package.json'), JSON.stringify(manifest, null, 2));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: workspace.dir, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    execFileSync('chown', ['-R', `${sandboxUser.uid}:${sandboxUser.gid}`, workspace.dir]);
    ({ dockerId } = await startContainer({
      docker,
      spec: {
        id, session: 'hunt-test', installation: { id: 'test', home: workspacesDir }, repoUrl: 'http://127.0.0.1/app.git', image, workspace,
        limits: { memoryBytes: 1024 * mb, cpus: 1, pids: 256, diskBytes: 64 * mb, timeoutMinutes: 10 },
        binds: [`${bundle}:/opt/cadre:ro`, `${gateway.socketPath}:${containerGatewaySocket}`],
        command: ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'],
      },
    }));
    for (let tries = 0; !(await docker.getContainer(dockerId).logs({ stdout: true })).toString('utf8').includes('modelPort'); tries += 1) {
      if (tries > 100) throw new Error('the forwarder did not start in the container');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUp({ docker, id, workspace, deleteWorkspace: true }).catch(() => undefined);
    await gateway?.close();
    await model?.close();
    project?.dispose();
    if (workspacesDir) rmSync(workspacesDir, { recursive: true, force: true });
    if (bundle) rmSync(bundle, { recursive: true, force: true });
  });

  it('neither the agent\'s npm script nor a docker exec as the sandbox user finds the JWT, and every call they try is refused', { timeout: 180_000 }, async () => {
    const container = docker.getContainer(dockerId);
    const canaryExec = await container.exec({ Cmd: ['node', '-e', 'setInterval(() => {}, 1000)', 'canary'], Env: [`CANARY=${canary}`], User: '1000:1000' });
    await canaryExec.start({ Detach: true });
    let execHunt: Promise<unknown> | undefined;
    const events: RunnerEvent[] = [];
    // Awaited after the hunt's reports are checked: a stolen JWT's calls would take the runner's scripted turns.
    const result = await runVmAttempt({
      docker, containerDockerId: dockerId, task: 'Run the tests',
      env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100', CADRE_GATEWAY_SOCKET: containerGatewaySocket },
      onEvent: () => undefined,
      onRunnerEvent: (event) => {
        events.push(event);
        // While the agent's command runs (its runner waiting for it), a person's `docker exec` hunts too.
        if (event.type === 'tool.call') execHunt ??= execIn(docker, container, ['node', '/workspace/scripts/token-hunt.mjs', 'exec'], { user: `${sandboxUser.uid}:${sandboxUser.gid}` });
      },
    }).catch((error: unknown) => error);
    await execHunt;

    for (const label of ['agent', 'exec']) {
      const report = JSON.parse(readFileSync(join(workspace.dir, `hunt-${label}.json`), 'utf8')) as HuntReport;
      expect(report.uid).toBe(sandboxUser.uid);
      // It saw the runner at work, and found what an ordinary process holds.
      expect(report.runners).toHaveLength(1);
      const runner = report.runners[0]!;
      const canaryPid = Object.keys(report.cmdlines).find((pid) => report.cmdlines[pid]!.endsWith(' canary'));
      expect(report.found.filter((hit) => hit.token === canary).length).toBe(1);
      expect(report.found.filter((hit) => hit.token !== canary)).toEqual([]);
      expect(report.opened).toContain(`environ ${canaryPid}`);
      for (const what of ['environ', 'maps', 'mem', 'fd']) expect(report.opened).not.toContain(`${what} ${runner}`);
      expect(report.ptraceable).not.toContain(runner);
      expect(report.inspectorOpen).toBe(false);
      // No key, through the forwarder or the socket, and the canary: refused, the forwarder adding nothing of the runner's.
      expect(report.calls.map((call) => call.status)).toEqual([401, 401, 401, 401]);
    }
    expect(result).toMatchObject({ summary: 'The tests ran.' });
    expect(JSON.stringify(events)).not.toContain(gateway.token);
    // The provider saw the runner's two turns and nothing else.
    expect(model.requests).toHaveLength(2);
    expect(gateway.audit.filter((entry) => entry.type === 'gateway.call').map((entry) => entry.data.status)).toEqual([200, 200]);
  });
});
