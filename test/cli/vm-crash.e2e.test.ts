// kill -9 of cadre while vm-agent runs a command in the real sandbox: the command does not run on unsupervised (the runner stops
// it when cadre's gateway goes away); the next cadre's /resume shows the interrupted task (its text, its steps, the workspace's
// changes, its command's fate) and /agent vm-agent --continue finishes it as a new attempt that continues the conversation;
// `cadre audit verify` says the crashed session's log ended by a crash (exit 5), and an edited copy is still tampered (exit 1).
// And a full workspace disk is said in the task's output, with the remedy.
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, isError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-crash-key-0123456789';
const suiteMark = 'crash-suite-still-running';
const hangingTest = `node -e "console.log('suite started'); setTimeout(() => {}, 300000)" ${suiteMark}`;
const added = 'export const c = 3;';
const taskText = 'add export const c = 3 after b, then run the tests';

describeDocker('kill -9 of cadre during a vm-agent task', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;
  const started: PipedCadre[] = [];
  let pty: PtySession | undefined;
  /** This file's cadre homes: a container left by a failed test is removed after all. */
  const homes: string[] = [];
  let containerId = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/crash', {
      'package.json': JSON.stringify({ name: 'crash', version: '1.0.0', scripts: { test: hangingTest } }),
      'config.js': 'export const a = 1;\nexport const b = 2;\n',
    });
    // Writes 200 MB in 1 MB pieces: on a 64 MB workspace it fails with ENOSPC.
    const fill = 'node -e "const fs = require(\'fs\'); const fd = fs.openSync(\'big.bin\', \'w\'); for (let i = 0; i < 200; i += 1) fs.writeSync(fd, Buffer.alloc(1 << 20))"';
    await gitServer.createRepo('acme/full', { 'package.json': JSON.stringify({ name: 'full', version: '1.0.0', scripts: { fill } }) });
    // A model that acts on what it is sent: fill the disk (the full-disk task), else the edit, then the tests; a continued
    // attempt finishes.
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: { turns: [] },
      respond: (request) => {
        const sent = JSON.stringify(request.body.messages);
        if (sent.includes('fill the workspace')) {
          return sent.includes('npm run fill') ? { text: 'Wrote as much as fit.' } : { toolCalls: [{ name: 'run-command', input: { command: 'npm run fill' } }] };
        }
        if (sent.includes('earlier attempt stopped before it finished')) return { text: 'Continued: c is in place; the hanging suite was not run again.' };
        if (!sent.includes(added)) return { toolCalls: [{ name: 'edit-file', input: { path: 'config.js', search: 'export const b = 2;', replace: `export const b = 2;\n${added}` } }] };
        return { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }] };
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const cadre of started) if (cadre.child.exitCode === null) cadre.child.kill('SIGKILL');
    pty?.kill();
    const left = (await docker.listContainers({ all: true, filters: { label: ['cadre.managed'] } })).filter((c) => homes.some((home) => c.Labels['cadre.workspace']?.startsWith(home)));
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  const environment = { CADRE_GATEWAY_ALLOW_LOOPBACK: '1', ANTHROPIC_API_KEY: modelKey, CADRE_MODEL: 'anthropic:claude-scripted' };
  const start = (project: string, home: string): PipedCadre => {
    homes.push(home);
    const cadre = startPipedCadre(project, home, { ...environment, ANTHROPIC_BASE_URL: model.url });
    started.push(cadre);
    return cadre;
  };
  /** Whether the hanging test suite still runs anywhere in the container. */
  const suiteRunning = async (dockerId: string): Promise<boolean> => {
    const processes = await execIn(docker, docker.getContainer(dockerId), ['sh', '-c', 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done']);
    return processes.stdout.includes(suiteMark);
  };
  const text = (event: JsonEvent): string => `${event.text ?? ''}${event.message ?? ''}`;

  it('stops the command, shows the task at /resume, continues it, and audit verify says crash', async () => {
    const { project, home } = await tempProject('cadre-vm-crash-');
    const first = start(project, home);
    containerId = await createContainer(first, gitServer.repoUrl('acme/crash'));
    const [container] = (await docker.listContainers({ all: true, filters: { label: [`cadre.container=${containerId}`] } }));
    const dockerId = container?.Id ?? '';
    const workspace = join(container?.Labels['cadre.workspace'] ?? '', 'workspace');
    const from = first.events.length;
    first.child.stdin.write(`/agent vm-agent "${taskText}"\n`);
    await first.next(from, (event) => event.type === 'output.stream' && String((event as { chunk?: string }).chunk).includes('suite started'), 180_000);
    const taskId = /task ([0-9a-f]{4})/.exec(first.events.slice(from).map(text).join('\n'))?.[1] ?? '';
    expect(taskId).toMatch(/^[0-9a-f]{4}$/);
    expect(await suiteRunning(dockerId)).toBe(true);
    const auditDir = join(home, 'audit');
    const [crashedLog] = readdirSync(auditDir).filter((name) => name.endsWith('.jsonl'));

    first.child.kill('SIGKILL');
    await first.exited;
    // The runner notices cadre's gateway is gone and stops its command; nothing works on in the container unsupervised.
    const killedAt = Date.now();
    while (await suiteRunning(dockerId)) {
      expect(Date.now() - killedAt, 'the command still runs in the container 30 s after cadre was killed').toBeLessThan(30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const second = start(project, home);
    const crashNote = await second.next(0, (event) => /stopped unexpectedly/.test(text(event)), 60_000);
    const keptAs = /\/resume (\S+) brings it back/.exec(text(crashNote))?.[1] ?? '';
    expect(keptAs).toMatch(/^crashed-/);
    expect(text(crashNote)).toContain(`vm-agent task ${taskId} in ${containerId} was interrupted`);
    const resumedAt = second.events.length;
    const shown = await second.run(`/resume ${keptAs}`, (event) => isError(event) || (event.type === 'output.result' && event.kind === 'vm-agent.interrupted'), 120_000);
    expect(shown.type).toBe('output.result');
    expect(shown.data).toMatchObject({
      taskId, containerId, text: taskText, unfinishedCommand: 'npm test', commandRunning: false,
      steps: [{ tool: 'edit-file', subject: 'config.js', outcome: 'done' }, { tool: 'run-command', subject: 'npm test', outcome: 'unfinished' }],
      continueWith: `/agent vm-agent --continue --container ${containerId}`,
    });
    expect(String(shown.data?.changes)).toMatch(/M config\.js/);
    await second.next(resumedAt, (event) => text(event).includes(`To continue it as a new attempt from the workspace as it is: /agent vm-agent --continue --container ${containerId}`));
    await second.next(resumedAt, (event) => event.type === 'output.message' && /Resumed session/.test(text(event)));

    const requestsBefore = model.requests.length;
    const finished = await second.run('/agent vm-agent --continue', (event) => isError(event) || /vm-agent finished task/.test(text(event)), 180_000);
    expect(text(finished)).toBe(`vm-agent finished task ${taskId} in ${containerId}: Continued: c is in place; the hanging suite was not run again.`);
    // One model call: the conversation went on (the interrupted test run answered as such), the edit was not made again.
    expect(model.requests.length).toBe(requestsBefore + 1);
    const continued = JSON.stringify(model.requests.at(-1)?.body.messages);
    expect(continued).toContain('may or may not have taken effect');
    expect(continued).toContain(taskText);
    expect(await readFile(join(workspace, 'config.js'), 'utf8')).toBe(`export const a = 1;\nexport const b = 2;\n${added}\n`);
    // Told once: a later /resume has nothing interrupted to show.
    expect((await second.run('/agent vm-agent --continue', isError)).code).toBe('vm-agent.nothing-to-continue');

    const log = join(auditDir, crashedLog!);
    const verdict = await runCli(['audit', 'verify', log], { cwd: project, home });
    expect(verdict.code).toBe(5);
    expect(verdict.stderr + verdict.stdout).toMatch(/ended by a crash at \S+ \(cadre pid \d+ stopped without closing it\), records up to \d+ intact/);
    // The same log with one record's time edited: tampering, though its crash is on record.
    const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    await writeFile(log, `${lines.map((line, index) => (index === 1 ? line.replace(/"ts":"20/, '"ts":"19') : line)).join('\n')}\n`);
    const tampered = await runCli(['audit', 'verify', log], { cwd: project, home });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr + tampered.stdout).toContain('keep this copy as evidence');

    await cleanUpAndEnd(second, containerId);
  }, 600_000);

  it('at the prompt, the next start offers the session, shows the task and asks; yes continues it', async () => {
    const { project, home } = await tempProject('cadre-vm-crash-pty-');
    const first = start(project, home);
    const id = await createContainer(first, gitServer.repoUrl('acme/crash'));
    const from = first.events.length;
    first.child.stdin.write(`/agent vm-agent "${taskText}"\n`);
    await first.next(from, (event) => event.type === 'output.stream' && String((event as { chunk?: string }).chunk).includes('suite started'), 180_000);
    const taskId = /task ([0-9a-f]{4})/.exec(first.events.slice(from).map(text).join('\n'))?.[1] ?? '';
    first.child.kill('SIGKILL');
    await first.exited;

    pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', ...environment, ANTHROPIC_BASE_URL: model.url },
    });
    let at = await pty.waitFor(/cadre stopped unexpectedly during session "[^"]+" \([^)]*\)\. Resume it\?/, { timeoutMs: 60_000 });
    pty.type('y');
    at = await pty.waitFor(`Task ${taskId} in ${id} was interrupted`, { from: at, timeoutMs: 120_000 });
    at = await pty.waitFor(`Continue task ${taskId} in ${id} as a new attempt, from the workspace as it is?`, { from: at, timeoutMs: 60_000 });
    const notice = pty.screen().slice(at - 2_000, at);
    expect(notice).toContain(`Task: "${taskText}"`);
    expect(notice).toMatch(/✔ edit-file config\.js/);
    expect(notice).toMatch(/… run-command npm test \(did not finish\)/);
    expect(notice).toMatch(/M config\.js/);
    pty.type('y');
    at = await pty.waitFor(`vm-agent finished task ${taskId} in ${id}: Continued: c is in place; the hanging suite was not run again.`, { from: at, timeoutMs: 180_000 });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/vm-cleanup ${id} --yes${keys.enter}`);
    at = await pty.waitFor(`${id} is removed`, { from: at, timeoutMs: 60_000 });
    pty.type(`/exit${keys.enter}`);
    expect(await pty.exited).toBe(0);
  }, 600_000);

  it('says a full workspace disk in the task\'s output, with the remedy', async () => {
    const { project, home } = await tempProject('cadre-vm-full-');
    const cadre = start(project, home);
    const created = await cadre.run(`/vm-create ${gitServer.repoUrl('acme/full')} --config "disk: 64MB"`, (event) => isError(event) || (event.type === 'output.result' && event.kind === 'vm.created'), 180_000);
    expect(created.type).toBe('output.result');
    const id = String(created.data?.containerId);
    const from = cadre.events.length;
    await cadre.run('/agent vm-agent "fill the workspace with a 200MB file"', (event) => isError(event) || /vm-agent finished task/.test(text(event)), 180_000);
    // Said when the failed step is seen, and again with the outcome (after it, so a queued task's start is told in order).
    await cadre.next(from, (event) => event.type === 'output.error' && event.code === 'container.disk-full' && / as task [0-9a-f]{4} ends/.test(String(event.message)), 30_000);
    const full = cadre.events.slice(from).filter((event) => event.type === 'output.error' && event.code === 'container.disk-full');
    expect(full.length).toBeGreaterThanOrEqual(1);
    expect(full[0]?.message).toMatch(new RegExp(`The workspace disk of ${id} is full \\(\\d+(\\.\\d)?MB of \\d+(\\.\\d)?MB used\\)`));
    expect(full[0]?.remedy).toContain('clean up in the workspace');
    expect(full[0]?.remedy).toContain(`/vm-create ${gitServer.repoUrl('acme/full')} --config "disk: 128MB"`);
    await cleanUpAndEnd(cadre, id);
  }, 400_000);
});
