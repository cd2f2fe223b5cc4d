// A running vm-agent task's container restarted or given a shorter timeout, at the interactive prompt in a real terminal and real
// Docker. /vm-restart asks first; "no" leaves the task alone and says what to do; "yes" restarts the container and the task carries
// on from the workspace as it is, without making its edit again and without blaming memory. A timeout shortened mid-task ends the
// task as timed-out at the new deadline, and the remedy it prints brings the container back for the next task.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const modelKey = 'sk-ant-restart-key-0123456789';
const hangingTest = 'node -e "console.log(\'suite started\'); setTimeout(() => {}, 120000)"';
const added = 'export const c = 3;';
const captured = (pattern: RegExp, text: string): string => pattern.exec(text)?.[1] ?? '';

describeDocker('/vm-restart under a running vm-agent task', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;
  let pty: PtySession | undefined;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/restart', {
      'package.json': JSON.stringify({ name: 'restart', version: '1.0.0', scripts: { test: hangingTest } }),
      'config.js': 'export const a = 1;\nexport const b = 2;\n',
    });
    // A model that acts on what it is sent: the edit unless it made it already, then the tests, then its summary.
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: { turns: [] },
      respond: (request) => {
        const sent = JSON.stringify(request.body.messages);
        if (sent.includes('continue where the last task stopped')) return { text: 'Continued: the change is in place.' };
        if (!sent.includes(added)) {
          return { toolCalls: [{ name: 'edit-file', input: { path: 'config.js', search: 'export const b = 2;', replace: `export const b = 2;\n${added}` } }] };
        }
        if (!sent.includes('npm test')) return { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }] };
        return { text: 'Added c; the test run was interrupted by the restart.' };
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    pty?.kill();
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  /** cadre at the prompt in a terminal, with a container of acme/restart running a task that is busy in its hanging `npm test`. */
  async function busyTask(prefix: string) {
    const { project, home } = await tempProject(prefix);
    const ours = async () =>
      (await docker.listContainers({ all: true, filters: { label: ['cadre.managed'] } })).filter((c) => c.Labels['cadre.workspace']?.startsWith(home));
    const session = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_GATEWAY_ALLOW_LOOPBACK: '1',
        ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted',
      },
    });
    pty = session;
    let at = await session.waitFor('cadre ›');
    session.type(`/vm-create ${gitServer.repoUrl('acme/restart')}${keys.enter}`);
    at = await session.waitFor(/Container vm-[0-9a-f]{4} is running/, { from: at, timeoutMs: 180_000 });
    const containerId = captured(/Container (vm-[0-9a-f]{4}) is running/, session.screen().slice(at));
    at = await session.waitFor('cadre ›', { from: at });
    session.type(`/agent vm-agent "add export const c = 3 after b, then run the tests"${keys.enter}`);
    at = await session.waitFor(/working on task [0-9a-f]{4}/, { from: at });
    const task = captured(/working on task ([0-9a-f]{4})/, session.screen().slice(at));
    at = await session.waitFor('suite started\n', { from: at, timeoutMs: 120_000 });
    at = await session.waitFor('cadre ›', { from: at });
    return { pty: session, at, containerId, task, ours };
  }

  /** Removes the container and leaves cadre; nothing of this test's is left on the engine. */
  async function cleanUpAndLeave(session: PtySession, containerId: string, from: number, ours: () => Promise<unknown[]>): Promise<void> {
    const at = await session.waitFor('cadre ›', { from });
    session.type(`/vm-cleanup ${containerId} --yes${keys.enter}`);
    await session.waitFor(`${containerId} is removed`, { from: at, timeoutMs: 60_000 });
    session.type(`/exit${keys.enter}`);
    expect(await session.exited).toBe(0);
    expect(await ours()).toEqual([]);
  }

  it('asks; no leaves the task running; yes restarts and the task finishes without repeating its edit', async () => {
    model.requests.length = 0;
    const started = await busyTask('cadre-vm-restart-');
    const { pty, containerId, task, ours } = started;
    let { at } = started;

    pty.type(`/vm-restart ${containerId}${keys.enter}`);
    at = await pty.waitFor(`vm-agent task ${task} is running in ${containerId}. Restart it anyway?`, { from: at });
    pty.type('n');
    at = await pty.waitFor(`${containerId} was not restarted: vm-agent task ${task} is running in it.`, { from: at });
    at = await pty.waitFor(`/vm-restart ${containerId} --force`, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    expect(model.requests).toHaveLength(2);

    pty.type(`/vm-restart ${containerId}${keys.enter}`);
    at = await pty.waitFor('Restart it anyway?', { from: at });
    pty.type('y');
    const answeredAt = at;
    at = await pty.waitFor(`${containerId} is running again`, { from: at, timeoutMs: 120_000 });
    const finishedAt = await pty.waitFor(`vm-agent finished task ${task} in ${containerId}: Added c; the test run was interrupted by the restart.`, { from: at, timeoutMs: 120_000 });
    const afterRestart = pty.screen().slice(answeredAt, finishedAt);
    expect(afterRestart).toContain(`Task ${task}: ${containerId} was restarted (/vm-restart) while vm-agent worked`);
    expect(afterRestart).not.toMatch(/memory|retrying|attempt 1 failed/);

    const [container] = await ours();
    const workspace = join(container?.Labels['cadre.workspace'] ?? '', 'workspace');
    expect(readFileSync(join(workspace, 'config.js'), 'utf8')).toBe(`export const a = 1;\nexport const b = 2;\n${added}\n`);
    // The last request carried the whole conversation: the edit, the interrupted test run, then where it stands.
    const resumed = JSON.stringify(model.requests.at(-1)?.body.messages);
    expect(resumed).toContain('may or may not have taken effect');
    expect(model.requests).toHaveLength(3);

    await cleanUpAndLeave(pty, containerId, finishedAt, ours);
  }, 400_000);

  it('a timeout shortened mid-task ends it as timed-out at the new deadline; the printed remedy brings the container back', async () => {
    const started = await busyTask('cadre-vm-deadline-');
    const { pty, containerId, task, ours } = started;
    let { at } = started;
    pty.type(`/vm-config --container ${containerId} --timeout 1${keys.enter}`);
    at = await pty.waitFor('timeout: the deadline is now', { from: at });
    const movedAt = Date.now();
    // Either cadre's deadline watcher or the container's own init may stop it first: the task is timed out either way.
    at = await pty.waitFor(`Task ${task} timed out`, { from: at, timeoutMs: 180_000 });
    // At the new deadline (one minute), not before it and nowhere near the old 30 minutes; stopping the container takes
    // longer on a loaded machine, hence the margin.
    const elapsed = Date.now() - movedAt;
    expect(elapsed).toBeGreaterThan(55_000);
    expect(elapsed).toBeLessThan(150_000);
    const remedy = captured(/give it more time with (\/vm-config --container vm-[0-9a-f]{4} --timeout <minutes>, then \/vm-restart vm-[0-9a-f]{4})/, pty.screen().slice(at));
    expect(remedy).toBe(`/vm-config --container ${containerId} --timeout <minutes>, then /vm-restart ${containerId}`);
    const ending = pty.screen().slice(at - 2_000);
    expect(ending).not.toMatch(/failed after|retried on the restarted container|retrying/);

    // The remedy, as printed.
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/vm-config --container ${containerId} --timeout 5${keys.enter}`);
    at = await pty.waitFor(`/vm-restart ${containerId} starts it again`, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/vm-restart ${containerId}${keys.enter}`);
    at = await pty.waitFor(`${containerId} is running again`, { from: at, timeoutMs: 120_000 });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/agent vm-agent "continue where the last task stopped"${keys.enter}`);
    at = await pty.waitFor(/vm-agent finished task [0-9a-f]{4} in vm-[0-9a-f]{4}: Continued: the change is in place\./, { from: at, timeoutMs: 120_000 });
    // Still running well past the old deadline: the container's own init follows the new one.
    const [container] = await ours() as { State: string }[];
    expect(container?.State).toBe('running');
    await cleanUpAndLeave(pty, containerId, at, ours);
  }, 400_000);
});
