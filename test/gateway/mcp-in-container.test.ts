// Real Docker: a reference MCP server from npm runs on the host; vm-agent in a sandbox container calls its tools only through
// the gateway, under its JWT; refusals are clear, the audit trail has every call and no secret, a server dying mid-call is survived.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runVmAttempt } from '../../src/agents/vm/supervise.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { newContainerId } from '../../src/container/labels.js';
import { startContainer } from '../../src/container/start.js';
import { prepareWorkspace, sandboxUser, type Workspace } from '../../src/container/workspace.js';
import { containerMcpEnv } from '../../src/gateway/container-env.js';
import { createContainerMcp, type ContainerMcp } from '../../src/mcp/for-containers.js';
import { containerGatewaySocket } from '../../src/runner/forwarder.js';
import { configSchema } from '../../src/store/config-schema.js';
import { mcpSecretValues } from '../../src/store/config.js';
import { registerSecret } from '../../src/store/redact.js';
import { buildRunnerBundle } from '../runner/support.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { everythingServer, filesystemServer } from '../support/mcp-servers.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { realKey, startHarness, type Harness } from './harness.js';

const mb = 1024 ** 2;
/** Given to the MCP server on the host only, as a config's `env` value: it must reach neither the container nor the audit trail. */
const hostSecret = 'mcp-host-credential-5f2c9e71d0a4b8';

/** A request from inside the container to the gateway's MCP routes (through the forwarder), printed as JSON. */
const fetchScript = (path: string, token: string | null, body?: object) => `
const res = await fetch('http://127.0.0.1:4100/cadre/mcp/${path}', {
  method: ${body ? "'POST'" : "'GET'"},
  headers: ${JSON.stringify({ ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) })},
  ${body ? `body: ${JSON.stringify(JSON.stringify(body))},` : ''}
});
console.log(JSON.stringify({ status: res.status, body: await res.json() }));`;

describeDocker('MCP tools for vm-agent, run on the host behind the gateway', () => {
  const docker = testDocker();
  const id = newContainerId();
  let bundle: string;
  let workspacesDir: string;
  let hostFolder: string;
  let workspace: Workspace;
  let model: ModelServer;
  let gateway: Harness;
  let mcp: ContainerMcp;
  let dockerId = '';
  let env: Record<string, string>;

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    bundle = await buildRunnerBundle();
    chmodSync(bundle, 0o755);
    hostFolder = mkdtempSync(join(tmpdir(), 'cadre-mcp-host-'));
    writeFileSync(join(hostFolder, 'notes.txt'), 'host-only notes\n');
    const config = configSchema.parse({
      mcp: {
        servers: {
          everything: { ...everythingServer(), env: { EVERYTHING_API_TOKEN: hostSecret }, containers: true, timeoutSeconds: 30 },
          files: filesystemServer(hostFolder),
        },
      },
    });
    // As loading the config does: the servers' env and header values are secrets.
    for (const value of mcpSecretValues(config)) registerSecret(value);
    mcp = createContainerMcp({ servers: config.mcp.servers, cwd: hostFolder, sink: () => undefined, version: 'test' })!;
    model = await startModelServer({
      requiredApiKey: realKey,
      script: {
        turns: [
          { text: 'Asking the integration.', toolCalls: [
            { name: 'mcp__everything__echo', input: { message: 'hello from the container' } },
            { name: 'mcp__everything__get-env', input: {} },
          ] },
          { text: 'The integration answered.', usage: { inputTokens: 200, outputTokens: 8 } },
        ],
      },
    });
    gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true, mcp } });
    workspacesDir = mkdtempSync(join(tmpdir(), 'cadre-workspaces-'));
    workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    mkdirSync(join(workspace.dir, 'src'));
    writeFileSync(join(workspace.dir, 'src/index.js'), 'export const answer = 42;\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: workspace.dir, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    execFileSync('chown', ['-R', `${sandboxUser.uid}:${sandboxUser.gid}`, workspace.dir]);
    ({ dockerId } = await startContainer({
      docker,
      spec: {
        id, session: 'mcp-test', installation: { id: 'test', home: workspacesDir }, repoUrl: 'http://127.0.0.1/app.git', image, workspace,
        limits: { memoryBytes: 512 * mb, cpus: 1, pids: 128, diskBytes: 64 * mb, timeoutMinutes: 10 },
        binds: [`${bundle}:/opt/cadre:ro`, `${gateway.socketPath}:${containerGatewaySocket}`],
        command: ['node', '/opt/cadre/cadre-forwarder.mjs', '--model-port', '4100', '--proxy-port', '4101'],
      },
    }));
    for (let tries = 0; !(await docker.getContainer(dockerId).logs({ stdout: true, stderr: true })).toString('utf8').includes('modelPort'); tries += 1) {
      if (tries > 100) throw new Error('the forwarder did not start in the container');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100', ...containerMcpEnv() };
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUp({ docker, id, workspace, deleteWorkspace: true }).catch(() => undefined);
    await gateway?.close();
    await mcp?.close();
    await model?.close();
    for (const dir of [workspacesDir, bundle, hostFolder]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const inContainer = async (path: string, token: string | null, body?: object) => {
    const run = await execIn(docker, docker.getContainer(dockerId), ['node', '--input-type=module', '-e', fetchScript(path, token, body)]);
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout.trim()) as { status: number; body: { error?: { code: string; message: string }; output?: string; tools?: { name: string }[] } };
  };

  it('the runner offers the host server\'s tools to the model and calls them through the gateway; no secret reaches the container or the audit trail', async () => {
    const result = await runVmAttempt({ docker, containerDockerId: dockerId, task: 'Ask the integration', env, onEvent: () => undefined });
    expect(result.summary).toBe('The integration answered.');
    const offered = (model.requests[0]?.body.tools as { name: string }[]).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['run-command', 'mcp__everything__echo', 'mcp__everything__get-env']));
    // Tools with side effects are not offered (no one can approve them in a container); the files server is not for containers.
    expect(offered).not.toContain('mcp__everything__toggle-simulated-logging');
    expect(offered.filter((name) => name.startsWith('mcp__files__'))).toEqual([]);
    const followUp = JSON.stringify(model.requests[1]?.body.messages);
    expect(followUp).toContain('Echo: hello from the container');
    // get-env shows the server's environment: the host credential in it comes back redacted.
    expect(followUp).toContain('EVERYTHING_API_TOKEN');
    expect(JSON.stringify(model.requests)).not.toContain(hostSecret);
    const calls = gateway.audit.filter((entry) => entry.type === 'gateway.mcp-call');
    expect(calls.map((entry) => [entry.data.server, entry.data.tool, entry.data.status])).toEqual([['everything', 'echo', 200], ['everything', 'get-env', 200]]);
    expect(calls[0]?.data).toMatchObject({ cid: 'c1', jti: gateway.jti.slice(0, 8), isError: false });
    expect(JSON.stringify(gateway.audit)).not.toContain(hostSecret);
  });

  it('refuses a call without the JWT, with another container\'s JWT, to a server not for containers, and to a tool with side effects', async () => {
    expect(await inContainer('tools', null)).toMatchObject({ status: 401, body: { error: { code: 'authentication', message: expect.stringContaining('(missing)') } } });
    const other = gateway.credentials.issueContainerToken({ session: 's1', cid: 'another-container', deadline: new Date(Date.now() + 600_000) });
    expect(await inContainer('call', other.token, { server: 'everything', tool: 'echo', arguments: { message: 'x' } }))
      .toMatchObject({ status: 401, body: { error: { message: expect.stringContaining('(wrong-container)') } } });
    expect(await inContainer('call', 'not-a-jwt', { server: 'everything', tool: 'echo', arguments: { message: 'x' } })).toMatchObject({ status: 401 });
    expect(await inContainer('call', gateway.token, { server: 'files', tool: 'read_text_file', arguments: { path: join(hostFolder, 'notes.txt') } }))
      .toMatchObject({ status: 403, body: { error: { code: 'not-for-containers', message: expect.stringContaining('mcp.servers.files.containers is not true') } } });
    expect(await inContainer('call', gateway.token, { server: 'everything', tool: 'toggle-simulated-logging', arguments: {} }))
      .toMatchObject({ status: 403, body: { error: { code: 'side-effects' } } });
    expect(await inContainer('call', gateway.token, { server: 'everything', tool: 'echo', arguments: { message: 'allowed' } }))
      .toMatchObject({ status: 200, body: { output: 'Echo: allowed' } });
    const refusals = gateway.audit.filter((entry) => entry.type === 'gateway.auth-failed' || entry.type === 'gateway.mcp-refused').map((entry) => entry.data.reason);
    expect(refusals).toEqual(expect.arrayContaining(['authentication', 'not-for-containers', 'side-effects']));
  });

  it('a server that dies mid-call gives a clear error; the next call starts it again and the gateway keeps working', async () => {
    const pending = inContainer('call', gateway.token, { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 20, steps: 20 } });
    // The server this test's process started on the host (its child), killed by its pid while the call runs.
    const serverPid = () => execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n').find((line) => line.includes('server-everything'))?.trim().split(/\s+/)[0];
    const pid = serverPid();
    expect(pid).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    process.kill(Number(pid), 'SIGKILL');
    const died = await pending;
    expect(died.status).toBe(502);
    expect(died.body.error?.message).toMatch(/^cadre gateway: .*(stopped during the call|Connection closed)/);
    expect(await inContainer('call', gateway.token, { server: 'everything', tool: 'echo', arguments: { message: 'still here' } }))
      .toMatchObject({ status: 200, body: { output: 'Echo: still here' } });
    expect(serverPid()).not.toBe(pid);
  });
});
