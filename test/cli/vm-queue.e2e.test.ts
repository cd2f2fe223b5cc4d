// vm-agent's queue at the interactive prompt, in a real terminal: a second task queues with its position, /cancel <id> removes a
// queued one unrun, /cancel stops the running one (its `npm test` gone from the container) and the queued task then runs to its end.
// Background output lands above the prompt, which stays whole at the bottom (checked on an emulated screen).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { seenLines } from '../support/terminal.js';

const modelKey = 'sk-ant-queue-key-0123456789';
// The test suite announces itself, then never ends: the task is visibly busy until it is cancelled.
const hangingTest = 'node -e "console.log(\'suite started\'); setTimeout(() => {}, 120000)"';

/** The first capture of `pattern` in `text`. */
const captured = (pattern: RegExp, text: string): string => pattern.exec(text)?.[1] ?? '';

describeDocker('vm-agent tasks queue and cancel at the prompt', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;
  let pty: PtySession | undefined;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/slow', {
      'package.json': JSON.stringify({ name: 'slow', version: '1.0.0', scripts: { test: hangingTest } }),
      'README.md': '# slow\n',
    });
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          { text: 'Running the tests first.', toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 100, outputTokens: 10 } },
          { text: 'Task two looked at the README; nothing to change.', usage: { inputTokens: 100, outputTokens: 10 } },
        ],
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    pty?.kill();
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  it('queues the second task, removes a queued one, cancels the running one and runs the queued one', async () => {
    const { project, home } = await tempProject('cadre-vm-queue-');
    // This test's containers: cadre's label, under this test's own cadre home.
    const ours = async () =>
      (await docker.listContainers({ all: true, filters: { label: ['cadre.managed'] } })).filter((c) => c.Labels['cadre.workspace']?.startsWith(home));
    pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_GATEWAY_ALLOW_LOOPBACK: '1',
        ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted',
      },
    });
    let at = await pty.waitFor('cadre ›');
    pty.type(`/vm-create ${gitServer.repoUrl('acme/slow')}${keys.enter}`);
    at = await pty.waitFor(/Container vm-[0-9a-f]{4} is running/, { from: at, timeoutMs: 180_000 });
    const containerId = captured(/Container (vm-[0-9a-f]{4}) is running/, pty.screen().slice(at));
    at = await pty.waitFor('cadre ›', { from: at });

    pty.type(`/agent vm-agent "task one: run the tests"${keys.enter}`);
    at = await pty.waitFor(/working on task [0-9a-f]{4}/, { from: at });
    const first = captured(/working on task ([0-9a-f]{4})/, pty.screen().slice(at));
    // The suite's own line (npm's banner echoes the script too); then the prompt is drawn again below it, untouched.
    at = await pty.waitFor('suite started\n', { from: at, timeoutMs: 120_000 });
    at = await pty.waitFor('cadre ›', { from: at });
    const whileRunning = await seenLines(pty.raw());
    // What the container printed is marked as coming from it.
    expect(whileRunning).toContain('vm-agent │ vm-agent started (attempt 1, anthropic claude-scripted) in /workspace');
    expect(whileRunning).toContain('vm-agent │ suite started');
    expect(whileRunning.at(-1)?.trim()).toBe('? cadre ›');

    pty.type(`/agent vm-agent "task two: read the README"${keys.enter}`);
    at = await pty.waitFor(/Task [0-9a-f]{4} is queued \(position 1\)/, { from: at });
    const second = captured(/Task ([0-9a-f]{4}) is queued/, pty.screen().slice(at));
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/agent vm-agent "task three: never runs"${keys.enter}`);
    at = await pty.waitFor(/Task [0-9a-f]{4} is queued \(position 2\)/, { from: at });
    const third = captured(/Task ([0-9a-f]{4}) is queued \(position 2\)/, pty.screen().slice(at));
    at = await pty.waitFor('cadre ›', { from: at });

    pty.type(`/status${keys.enter}`);
    at = await pty.waitFor(`Tasks       ${first} (running), ${second} (queued 1), ${third} (queued 2)\n`, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/cancel ${third}${keys.enter}`);
    at = await pty.waitFor(`Task ${third} was removed from the queue; it never ran.`, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/status${keys.enter}`);
    at = await pty.waitFor(`Tasks       ${first} (running), ${second} (queued 1)\n`, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });

    pty.type(`/cancel${keys.enter}`);
    const cancellingAt = await pty.waitFor('Cancelling the running task.', { from: at });
    // In this order: the cancel said, the outcome told, then the queued task started.
    const cancelledAt = await pty.waitFor(`Task ${first} was cancelled; the workspace of ${containerId} is kept.`, { from: cancellingAt, timeoutMs: 30_000 });
    const startedAt = await pty.waitFor(`Task ${second} started in ${containerId}.`, { from: cancelledAt });
    at = await pty.waitFor(`vm-agent finished task ${second} in ${containerId}: Task two looked at the README; nothing to change.`, { from: startedAt, timeoutMs: 120_000 });
    const afterCancel = pty.screen().slice(cancelledAt);
    // What the stopped runner still said is not shown as if the task went on (or were retried).
    expect(afterCancel).not.toMatch(/killed by SIG|runner was|retried/);
    expect(pty.screen()).not.toContain(`Task ${third} started`);
    expect(model.requests).toHaveLength(2);

    // Nothing of task one is left running in the container: no runner, no npm, no hanging test.
    const [running] = await ours();
    expect(running?.State).toBe('running');
    const processes = await execIn(docker, docker.getContainer(running?.Id ?? ''), ['sh', '-c', 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done']);
    expect(processes.stdout).toContain('cadre-init');
    expect(processes.stdout).not.toMatch(/npm|setTimeout|cadre-runner/);

    at = await pty.waitFor('cadre ›', { from: at });
    const seen = await seenLines(pty.raw());
    // Every background line stands on its own: the only prompt still being typed at is the last line.
    expect(seen.filter((line) => line.startsWith('? cadre ›')).map((line) => line.trim())).toEqual(['? cadre ›']);
    expect(seen.at(-1)?.trim()).toBe('? cadre ›');

    pty.type(`/vm-cleanup ${containerId} --yes${keys.enter}`);
    at = await pty.waitFor(`${containerId} is removed`, { from: at, timeoutMs: 60_000 });
    pty.type(`/exit${keys.enter}`);
    expect(await pty.exited).toBe(0);
    expect(await ours()).toEqual([]);
  }, 400_000);
});
