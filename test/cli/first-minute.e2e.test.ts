// The first minute for someone who knows claude -p / gemini -p / codex exec: one task without the prompt, -m, what
// `cadre config` says is active, and the message on a Node older than cadre supports. Real cadre processes on a corpus
// project, the model a local OpenAI-format server.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';

let server: ModelServer | undefined;
let copy: CorpusCopy | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  copy?.dispose();
  copy = undefined;
});

const served = [{ id: 'scripted-coder', contextWindow: 32_768 }, { id: 'qwen-large', contextWindow: 131_072 }];

async function cadre(script: ModelScript, args: string[], env: Record<string, string> = {}) {
  server = await startModelServer({ script, models: served });
  copy = unpackCorpus('koa-typescript-rest');
  const { home } = await tempProject();
  const modelEnv = { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted-coder', CADRE_API_KEY: 'sk-test-key-123456', ...env };
  return { run: await runCli(args, { cwd: copy.root, home, env: modelEnv }), server };
}

const answer = 'A Koa REST API in TypeScript with TypeORM entities for users.';

it('cadre -p "task" runs one task with universal-agent, prints the answer once on stdout and exits 0', async () => {
  const { run, server } = await cadre({ turns: [{ text: answer, usage: { inputTokens: 75_260, outputTokens: 40 } }] }, ['-p', 'What is this project?']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.split(answer).length - 1).toBe(1);
  const messages = JSON.stringify(server.requests[0]?.body.messages);
  expect(messages).toContain('What is this project?');
  expect(server.requests[0]?.body.model).toBe('scripted-coder');
});

it('/status writes its token figures with separators, as the token line of a task does', async () => {
  const { run } = await cadre({ turns: [{ text: answer, usage: { inputTokens: 75_260, outputTokens: 40 } }] }, ['-c', '/agent universal-agent "What is this project?"', '-c', '/status']);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^Tokens {6}75,300 used \(75,260 in, 40 out\)/m);
  expect(run.stdout).toMatch(/^Budget {6}vm-agent 0 of [\d,]+ tokens$/m);
});

it('cadre "task" is the same, and -m picks the model for the run', async () => {
  const { run, server } = await cadre({ turns: [{ text: answer }] }, ['-m', 'qwen-large', 'What', 'is this project?']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(answer);
  expect(server.requests[0]?.body.model).toBe('qwen-large');
  expect(JSON.stringify(server.requests[0]?.body.messages)).toContain('What is this project?');
});

it('--json -p prints JSON lines, -c entries run first, and a plan without approval stops the run with nothing written', async () => {
  const { run } = await cadre({ turns: [
    { toolCalls: [{ name: 'write-file', input: { path: 'src/health.ts', content: 'export const health = () => "ok";\n' } }] },
    { toolCalls: [{ name: 'propose-plan', input: { title: 'Add a health route', steps: [{ path: 'src/health.ts', summary: 'the route' }] } }] },
    { text: 'The plan adds src/health.ts.' },
  ] }, ['--json', '-c', '/status', '-p', 'add a health route']);
  expect(existsSync(join(copy?.root ?? '', 'src/health.ts'))).toBe(false);
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; kind?: string; code?: string });
  expect(lines.findIndex((line) => line.kind === 'status')).toBeGreaterThanOrEqual(0);
  expect(run.code).not.toBe(0);
  expect(lines.some((line) => line.type === 'output.error' && line.code === 'plan.needs-approval')).toBe(true);
});

it('--help says how -p runs treat a plan', async () => {
  const { home, project } = await tempProject();
  const run = await runCli(['--help'], { cwd: project, home });
  expect(run.stdout).toMatch(/-p, --prompt <task>/);
  expect(run.stdout).toMatch(/-m, --model <name>/);
  expect(run.stdout).toContain('plan.needs-approval');
  expect(run.stdout).toContain('cadre -c "/auto on" -p "<task>"');
});

it('cadre config shows the active provider in model.provider, as "Active model" below it says', async () => {
  const { run } = await cadre({ turns: [] }, ['config']);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^model\.provider +openai-compatible +active: environment \(CADRE_BASE_URL\)$/m);
  expect(run.stdout).not.toMatch(/^model\.provider +offline/m);
  expect(run.stdout).toContain('Active model: openai-compatible · scripted-coder');
});

it('on a Node older than cadre supports, cadre says which it needs instead of failing inside its code', async () => {
  // This machine has one Node (20): the older one is played by a preload that reports 18.19.0 as the running version
  // before bin/cadre.js runs, which is all the entry point reads.
  const { home, project } = await tempProject();
  const preload = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.19.0"})`;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', preload, cadreBin, '-c', '/status'], { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('cadre needs Node.js 20.19 or newer; this is Node.js 18.19.0');
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).toBe('');
});

it('/analyze-project and /init warn when the project asks for another Node than the one running', async () => {
  // taxonomy's .nvmrc says v16.18.0; koa-typescript-rest's engines say 14.x.x (cadre itself needs 20.19 or newer).
  copy = unpackCorpus('taxonomy');
  const { home } = await tempProject();
  const analysed = await runCli(['-c', '/analyze-project'], { cwd: copy.root, home });
  expect(analysed.code).toBe(0);
  expect(analysed.stdout).toContain(`This project asks for Node v16.18.0 (.nvmrc); this is Node ${process.versions.node}`);
  copy.dispose();

  copy = unpackCorpus('koa-typescript-rest');
  const init = await runCli(['-c', '/auto on', '-c', '/init'], { cwd: copy.root, home });
  expect(init.code).toBe(0);
  expect(init.stdout).toContain(`This project asks for Node 14.x.x (package.json (engines.node)); this is Node ${process.versions.node}`);
  expect(existsSync(join(copy.root, 'AGENTS.md'))).toBe(true);
});

it('before the checks of an applied plan run, cadre warns that the project asks for another Node', async () => {
  const { run } = await cadre({ turns: [
    { toolCalls: [{ name: 'write-file', input: { path: 'src/health.ts', content: 'export const health = (): string => "ok";\n' } }] },
    { toolCalls: [{ name: 'propose-plan', input: { title: 'Add a health check', steps: [{ path: 'src/health.ts', summary: 'the check' }] } }] },
    { text: 'Added src/health.ts.' },
  ] }, ['-c', '/auto on', '-c', '/agent universal-agent "add a health check function"']);
  expect(run.code).toBe(0);
  const warned = run.stdout.indexOf(`This project asks for Node 14.x.x (package.json (engines.node)); this is Node ${process.versions.node}`);
  expect(warned).toBeGreaterThan(run.stdout.indexOf('Applied "Add a health check"'));
  expect(warned).toBeLessThan(run.stdout.indexOf('Checked: every step of the plan is on disk.'));
});

it('/analyze-project says which files it left out of the index for their size', async () => {
  copy = unpackCorpus('koa-typescript-rest');
  const { home } = await tempProject();
  // A generated file as big as the one a new user met (48 MB), beside the project's own code.
  await writeFile(join(copy.root, 'src/generated-schema.ts'), `export const schema = ${JSON.stringify('x'.repeat(48_000_000))};\n`);
  const run = await runCli(['-c', '/analyze-project'], { cwd: copy.root, home });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/src\/generated-schema\.ts: is 48\.0 MB, over the 1 MB the analyses read; it was left out\./);
});

it('read-file reads a line range of a file over 16 MB by streaming it', async () => {
  copy = unpackCorpus('koa-typescript-rest');
  const target = copy.root;
  // 300,000 lines of 64 bytes: 19.2 MB, over the 16 MB read-file reads whole.
  await writeFile(join(target, 'seed.sql'), Array.from({ length: 300_000 }, (_, i) => `INSERT INTO users VALUES (${i + 1});`.padEnd(63, ' ')).join('\n') + '\n');
  server = await startModelServer({ script: { turns: [
    { toolCalls: [{ name: 'read-file', input: { path: 'seed.sql', startLine: 250_000, endLine: 250_002 } }] },
    { toolCalls: [{ name: 'read-file', input: { path: 'seed.sql' } }] },
    { text: 'Row 250,001 is there.' },
  ] }, models: served });
  const { home } = await tempProject();
  const run = await runCli(['-c', '/agent universal-agent "What is on line 250001 of seed.sql?"'], { cwd: target, home, env: { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted-coder', CADRE_API_KEY: 'sk-test-key-123456' } });
  expect(run.code).toBe(0);
  const afterRange = JSON.stringify(server.requests[1]?.body.messages);
  expect(afterRange).toContain('250001\\tINSERT INTO users VALUES (250001);');
  expect(afterRange).toContain('250000\\tINSERT INTO users VALUES (250000);');
  expect(afterRange).not.toContain('(250003)');
  // Whole, it is still refused, and the model is told how to read it.
  expect(JSON.stringify(server.requests[2]?.body.messages)).toContain('read a part of it with startLine and endLine');
});

it('/compact shows the summary the conversation now carries', async () => {
  const { run } = await cadre({ turns: [
    { text: answer },
    { text: 'The user asked what the project is: a Koa REST API with TypeORM users.' },
  ] }, ['-c', '/agent universal-agent "What is this project?"', '-c', '/compact']);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/Compacted 2 message\(s\) into a summary: [\d,]+ → [\d,]+ tokens\. Follow-ups continue from it\.\n\nSummary:\nThe user asked what the project is: a Koa REST API with TypeORM users\.\n/);
});

it('a plan whose title names a change its diff lacks is sent back to the model before it is shown', async () => {
  const { run, server } = await cadre({ turns: [
    { toolCalls: [{ name: 'write-file', input: { path: 'src/health.ts', content: 'export const health = (): string => "ok";\n' } }] },
    { toolCalls: [{ name: 'propose-plan', input: { title: 'Add a `disabled` flag to src/controller/user.ts', steps: [{ path: 'src/health.ts', summary: 'the check' }] } }] },
    { toolCalls: [{ name: 'propose-plan', input: { title: 'Add a health check in src/health.ts', steps: [{ path: 'src/health.ts', summary: 'the check' }] } }] },
    { text: 'Added src/health.ts.' },
  ] }, ['--json', '-c', '/agent universal-agent "add a health check function"']);
  const refused = JSON.stringify(server.requests[2]?.body.messages);
  expect(refused).toContain('names src/controller/user.ts, `disabled`, which none of the staged changes have');
  const plans = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { kind?: string; data?: { title?: string } }).filter((line) => line.kind === 'plan');
  expect(plans.map((plan) => plan.data?.title)).toEqual(['Add a health check in src/health.ts']);
});
