// kill -9 of cadre while a vm-agent task's model call is in flight at the gateway: the next cadre audits the call as
// interrupted and, once the crashed session is resumed, charges its reservation to that session's budget.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, isError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-budget-crash-key-0123456789';

describeDocker('kill -9 of cadre with a model call in flight', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;
  const started: PipedCadre[] = [];
  let containerId = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/budget-crash', { 'package.json': JSON.stringify({ name: 'budget-crash', version: '1.0.0' }) });
    // The task's first call is held for two minutes: cadre is killed while the gateway waits for it.
    model = await startModelServer({ requiredApiKey: modelKey, script: { turns: [] }, respond: () => ({ text: 'too late', delayMs: 120_000 }) });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const cadre of started) if (cadre.child.exitCode === null) cadre.child.kill('SIGKILL');
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  const start = (project: string, home: string): PipedCadre => {
    const cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1', ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted' });
    started.push(cadre);
    return cadre;
  };
  const text = (event: JsonEvent): string => `${event.text ?? ''}${event.message ?? ''}`;
  const interruptedRecords = (home: string): Array<Record<string, unknown>> =>
    readdirSync(join(home, 'audit')).filter((name) => name.endsWith('.jsonl')).flatMap((name) => readFileSync(join(home, 'audit', name), 'utf8').split('\n'))
      .filter((line) => line.includes('"interrupted"')).map((line) => (JSON.parse(line) as { data: Record<string, unknown> }).data);

  it('the next cadre audits the call as interrupted and charges its reservation to the resumed session', async () => {
    const { project, home } = await tempProject('cadre-budget-crash-');
    const first = start(project, home);
    containerId = await createContainer(first, gitServer.repoUrl('acme/budget-crash'));
    first.child.stdin.write('/agent vm-agent "say hello"\n');
    for (const began = Date.now(); model.requests.length === 0; await new Promise((resolve) => setTimeout(resolve, 200))) {
      expect(Date.now() - began, 'the task\'s model call never reached the model server').toBeLessThan(180_000);
    }
    first.child.kill('SIGKILL');
    await first.exited;

    const second = start(project, home);
    const crashNote = await second.next(0, (event) => /stopped unexpectedly/.test(text(event)), 60_000);
    const keptAs = /\/resume (\S+) brings it back/.exec(text(crashNote))?.[1] ?? '';
    expect(keptAs).toMatch(/^crashed-/);
    // The vm side starts in the new session (the call is audited, and kept for its own session)...
    expect((await second.run('/vm-status', (event) => isError(event) || event.type === 'output.result')).type).toBe('output.result');
    expect(interruptedRecords(home)).toHaveLength(1);
    // ...which is then resumed: the call is charged to it.
    const resumedAt = second.events.length;
    second.child.stdin.write(`/resume ${keptAs}\n`);
    await second.next(resumedAt, (event) => isError(event) || (event.type === 'output.message' && /Resumed session/.test(text(event))), 120_000);

    // Audited once, with what it reserved: its input bound and the output cap it was sent with.
    const [record, ...more] = interruptedRecords(home);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ end: 'interrupted', cid: containerId, provider: 'anthropic', model: 'claude-scripted', tokensIn: expect.any(Number), tokensOut: expect.any(Number) });
    const reserved = Number(record?.tokensIn) + Number(record?.tokensOut);
    expect(reserved).toBeGreaterThan(1_000);
    // Charged to the resumed session: /status counts it.
    const status = await second.run('/status', (event) => isError(event) || (event.type === 'output.result' && event.kind === 'status'));
    expect((status.data?.budget as { used?: number } | undefined)?.used).toBeGreaterThanOrEqual(reserved);

    await cleanUpAndEnd(second, containerId);
  }, 600_000);
});
