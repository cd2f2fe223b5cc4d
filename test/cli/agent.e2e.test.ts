// universal-agent in a real terminal against the local model server: plan, v, reject with a reason, approve, /exec, /save, /undo.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { loadModelScript } from '../support/model-server-script.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

let server: ModelServer | undefined;
const ptys: PtySession[] = [];
afterEach(async () => {
  for (const pty of ptys.splice(0)) pty.kill();
  await server?.close();
  server = undefined;
});

async function greetProject(): Promise<{ project: string; home: string }> {
  const { project, home } = await tempProject();
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src/index.ts'), 'export {};\n');
  await writeFile(join(project, 'README.md'), '# demo\n');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'demo', scripts: { test: "grep -q 'Hello, ${name}.' src/greet.ts && echo greet tests passed" } }));
  return { project, home };
}

const modelEnv = (url: string) => ({ CADRE_BASE_URL: `${url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456', PAGER: 'cat' });

describe('universal-agent at the prompt', () => {
  it('drafts a plan, shows the diff with v, redrafts after a rejection, applies on y, then /exec, a follow-up, /save and /undo', { timeout: 90_000 }, async () => {
    server = await startModelServer({ script: { turns: ['agent-greet', 'agent-greet-followup', 'agent-greet-followup-applied'].flatMap((name) => loadModelScript(name).turns) } });
    const { project, home } = await greetProject();
    const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', ...modelEnv(server.url) },
    });
    ptys.push(pty);
    let at = await pty.waitFor('cadre ›');
    pty.type(`/agent universal-agent "Add a greet function with tests and docs"${keys.enter}`);
    at = await pty.waitFor('Apply this plan?', { from: at });
    expect(pty.screen().slice(0, at)).toMatch(/create-file\s+src\/greet\.ts/);
    expect(existsSync(join(project, 'src/greet.ts'))).toBe(false);

    pty.type('v');
    at = await pty.waitFor('+export function greet(name: string): string {', { from: at });
    at = await pty.waitFor('Apply this plan?', { from: at });

    pty.type('n');
    at = await pty.waitFor('Why not?', { from: at });
    pty.type(`use a full stop${keys.enter}`);
    at = await pty.waitFor('Apply this plan?', { from: at + 10 });
    expect(JSON.stringify(server.requests.at(-4)?.body)).toContain('use a full stop');

    pty.type('y');
    at = await pty.waitFor('Checked: every step of the plan is on disk.', { from: at });
    await pty.waitFor('cadre ›', { from: at });
    expect(readFileSync(join(project, 'src/greet.ts'), 'utf8')).toContain('Hello, ${name}.');
    expect(readFileSync(join(project, 'src/index.ts'), 'utf8')).toContain("export { greet } from './greet.js';");

    pty.type(`/exec npm test --silent${keys.enter}`);
    at = await pty.waitFor('greet tests passed', { from: at });
    at = await pty.waitFor('[exit code 0', { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`now greet with Hi instead${keys.enter}`);
    at = await pty.waitFor('Apply this plan?', { from: at });
    expect(JSON.stringify(server.requests.at(-4)?.body)).toContain('greet tests passed');
    pty.type('y');
    at = await pty.waitFor('Checked: every step of the plan is on disk.', { from: at });
    expect(readFileSync(join(project, 'src/greet.ts'), 'utf8')).toContain('Hi, ${name}.');
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/save greet-work${keys.enter}`);
    at = await pty.waitFor('Saved session "greet-work"', { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(`/status${keys.enter}`);
    at = await pty.waitFor(/Tokens\s+\d{1,3}(,\d{3})* used/, { from: at });
    at = await pty.waitFor('cadre ›', { from: at });

    pty.type(`/undo${keys.enter}`);
    at = await pty.waitFor('Undone', { from: at });
    expect(readFileSync(join(project, 'src/greet.ts'), 'utf8')).toContain('Hello, ${name}.');
    await pty.waitFor('cadre ›', { from: at });
    pty.type(keys.ctrlD);
    expect(await pty.exited).toBe(0);

    // The saved file is the session actor's snapshot: the agent's conversation and the one usage figure are in its context.
    const saved = JSON.parse(readFileSync(join(project, '.cadre/sessions/greet-work.json'), 'utf8')) as { snapshot: { context: { agentMemory: { conversation: unknown[] }; usage: { outputTokens: number } } }; agentState?: unknown; usage?: unknown };
    expect(saved.snapshot.context.agentMemory.conversation.length).toBeGreaterThan(2);
    expect(saved.snapshot.context.usage.outputTokens).toBeGreaterThan(0);
    expect(saved.agentState).toBeUndefined();
    expect(saved.usage).toBeUndefined();
    const audit = (await runCli(['audit', 'show'], { cwd: project, home })).stdout;
    expect(audit).toMatch(/plan\.rejected/);
    expect(audit).toMatch(/plan\.approved/);
    expect(audit).toMatch(/file\.written/);
    expect(audit).toMatch(/command\.executed/);
    expect(audit).not.toContain('sk-test-key-123456');
  });

  it('shows each refusal (denied path, file over 100 KB, binary file) and changes nothing', async () => {
    server = await startModelServer({ script: 'agent-refusals' });
    const { project, home } = await greetProject();
    await writeFile(join(project, '.env'), 'SECRET=1\n');
    await writeFile(join(project, 'big.txt'), 'x'.repeat(101 * 1024));
    await writeFile(join(project, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    const run = await runCli(['-c', '/agent universal-agent "Edit .env, big.txt and logo.png"'], { cwd: project, home, env: modelEnv(server.url) });
    expect(run.stdout + run.stderr).toMatch(/\.env/);
    expect(run.stdout + run.stderr).toMatch(/100 KB/);
    expect(run.stdout + run.stderr).toMatch(/binary/i);
    expect(JSON.stringify(server.requests[1]?.body)).toMatch(/denied|not allowed|refused/i);
    expect(readFileSync(join(project, 'big.txt'), 'utf8')).toBe('x'.repeat(101 * 1024));
  });

  it('in -c mode, a plan that needs approval is not applied and says how to proceed; /auto applies it', async () => {
    server = await startModelServer({ script: { turns: [...loadModelScript('agent-greet').turns, ...loadModelScript('agent-greet').turns] } });
    const { project, home } = await greetProject();
    const env = modelEnv(server.url);
    const asked = await runCli(['-c', '/agent universal-agent "Add a greet function with tests and docs"'], { cwd: project, home, env });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('waits for approval');
    expect(existsSync(join(project, 'src/greet.ts'))).toBe(false);
    const auto = await runCli(['-c', '/auto on', '-c', '/agent universal-agent "Add a greet function with tests and docs"'], { cwd: project, home, env });
    expect(auto.code).toBe(0);
    expect(readFileSync(join(project, 'src/greet.ts'), 'utf8')).toContain('Hello, ${name}!');
  });

  it('keeps the session when the provider fails mid-task, and says what to do', async () => {
    server = await startModelServer({ script: 'agent-greet' });
    // A 500 is retried (3 times, here without waiting: the server says retry-after 0); one that persists fails the task.
    for (let call = 0; call < 4; call += 1) server.failNext({ status: 500, message: 'upstream exploded', retryAfter: '0' });
    const { project, home } = await greetProject();
    const run = await runCli(['-c', '/agent universal-agent "Add a greet function"', '-c', '/status'], { cwd: project, home, env: modelEnv(server.url) });
    expect(run.code).not.toBe(0);
    expect(server.requests).toHaveLength(4);
    expect(run.stderr).toMatch(/server error \(500\): upstream exploded \(4 calls failed; cadre stopped trying\)/);
    expect(existsSync(join(project, 'src/greet.ts'))).toBe(false);
    const autosave = JSON.parse(readFileSync(join(project, '.cadre/sessions/.autosave.json'), 'utf8')) as { snapshot: { context: { transcript: { role: string; text: string }[] } } };
    expect(autosave.snapshot.context.transcript.some((entry) => entry.role === 'user' && entry.text === 'Add a greet function')).toBe(true);
  });

  it('offline: a component is generated from the project\'s conventions, planned, and applied in /auto', async () => {
    const { cp } = await import('node:fs/promises');
    const { project, home } = await tempProject();
    await cp(join(import.meta.dirname, '../../examples/react-shop'), project, { recursive: true });
    const run = await runCli(['-c', '/auto on', '-c', '/agent universal-agent "create a component SearchBox with props title:string onSearch"'], { cwd: project, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('generate-component');
    expect(readFileSync(join(project, 'src/components/SearchBox.tsx'), 'utf8')).toMatch(/interface SearchBoxProps/);
    expect(readFileSync(join(project, 'src/components/index.ts'), 'utf8')).toContain('SearchBox');
  });

  it('offline: an analysis task runs the capability, a code change says a model is needed (exit 3)', async () => {
    const { project, home } = await greetProject();
    const audit = await runCli(['-c', '/agent universal-agent "audit the security of this project"'], { cwd: project, home });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/security analysis found \d+ issue/);
    const change = await runCli(['-c', '/agent universal-agent "add a login page"'], { cwd: project, home });
    expect(change.code).toBe(3);
    expect(change.stderr).toContain('needs a model');
    expect(change.stderr).toContain('ANTHROPIC_API_KEY');
  });
});
