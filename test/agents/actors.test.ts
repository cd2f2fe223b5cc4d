// universal-agent through the production wiring (agent host, session, task and plan actors): route, draft, reject with a reason, apply, verify, undo.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyActorRef } from 'xstate';
import type { PlanEffectInput } from '../../machines/plan.machine.js';
import { sessionMachine } from '../../machines/session.machine.js';
import { createUniversalAgentSteps } from '../../src/agents/actors.js';
import { markPlanRejected, type AgentMemory, type AgentMemoryStore } from '../../src/agents/session-state.js';
import { addUsage, zeroUsage, type TokenUsage } from '../../src/model/types.js';
import { createAgentHost } from '../../src/app/agent-host.js';
import { createModelHost } from '../../src/app/model-host.js';
import type { ApprovalAnswer } from '../../src/cli/approval.js';
import { exitCodes } from '../../src/errors.js';
import type { OutputEvent } from '../../src/output.js';
import { createModelClient } from '../../src/model/client.js';
import { configSchema } from '../../src/store/config-schema.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { loadModelScript } from '../support/model-server-script.js';
import { makeProject } from './tools/context.js';

let server: ModelServer | undefined;

/** An agent memory outside any session, for the steps alone. */
function plainMemory(): AgentMemoryStore {
  let kept: AgentMemory = { conversation: [], lastPlan: null, execOutputs: [], usageLog: [], runs: [] };
  let usage: TokenUsage = zeroUsage();
  return {
    read: () => ({ ...kept }),
    write: (patch) => void (kept = { ...kept, ...patch }),
    addUsage: (used) => void (usage = addUsage(usage, used)),
    usage: () => usage,
  };
}
afterEach(async () => server?.close());

/** The agent host as cadre wires it, on a real session actor; `answers` are what the person says at each approval prompt. */
function startAgents(cwd: string, options: { model?: ModelServer; answers?: ApprovalAnswer[]; neverAnswer?: boolean; onAsk?: () => void; redraft?: boolean } = {}) {
  const config = configSchema.parse(options.model ? { model: { provider: 'openai', name: 'm', apiKey: 'k', baseUrl: `${options.model.url}/v1` } } : {});
  const events: OutputEvent[] = [];
  const audit: { type: string; data: Record<string, unknown> }[] = [];
  const asked: { plan: PlanEffectInput; tree: { task: boolean; plan: boolean } }[] = [];
  const sink = (event: OutputEvent): void => void events.push(event);
  const ref: { session?: AnyActorRef } = {};
  const agents = createAgentHost({
    cwd, env: {}, config, sink,
    audit: (type, data) => audit.push({ type, data }),
    session: () => ref.session as AnyActorRef,
    models: createModelHost({ config, env: {}, sink }),
    sessionId: 'test-session',
    vmAttempt: fromPromise(() => Promise.reject(new Error('these tests run universal-agent only'))),
    ask: async (plan) => {
      // Where the prompt is asked from: the plan actor, a child of the task actor, a child of the session.
      const task = Object.values(ref.session?.getSnapshot().children ?? {})[0] as AnyActorRef | undefined;
      asked.push({ plan, tree: { task: task !== undefined, plan: task?.getSnapshot().children.plan !== undefined } });
      if (options.neverAnswer) return new Promise<never>(() => undefined);
      options.onAsk?.();
      return options.answers?.shift() ?? { decision: 'cancel' };
    },
    askRedraft: async () => options.redraft === true,
  });
  const session = createActor(sessionMachine.provide({ actors: { task: agents.taskLogic } }), { input: { name: 'test' } }).start();
  ref.session = session;
  const said = (): string[] => events.flatMap((event) => (event.type === 'output.message' ? [event.text] : []));
  return { agents, session, events, audit, asked, said, run: (text: string) => agents.runTask({ agent: 'universal-agent', text }, { signal: new AbortController().signal, interactive: true }) };
}

it('asks at the plan actor, redrafts after a rejection with its reason, then applies, verifies and undoes the plan', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  server = await startModelServer({ script: { turns: [...loadModelScript('agent-greet').turns, ...loadModelScript('agent-greet-followup').turns] } });
  const cadre = startAgents(cwd, { model: server, answers: [{ decision: 'reject', reason: 'use a full stop' }, { decision: 'approve' }] });

  expect(await cadre.run('Add a greet function with tests and docs')).toBe(exitCodes.ok);
  expect(cadre.asked.map((question) => question.tree)).toEqual([{ task: true, plan: true }, { task: true, plan: true }]);
  expect(JSON.stringify(server.requests[5]?.body)).toContain('I rejected the plan. use a full stop');
  const applied = cadre.asked[1]?.plan;
  expect(applied?.sensitiveReason).toBeNull();
  expect(applied?.steps[0]).toMatchObject({ id: '1', action: 'create-file', path: 'src/greet.ts', added: 3, removed: 0 });
  expect(readFileSync(join(cwd, 'src/greet.ts'), 'utf8')).toContain('Hello, ${name}.');
  const memory = cadre.agents.memory.read();
  expect(memory.lastPlan?.status).toBe('applied');
  // One usage figure: the session's, which the model's two drafts went into.
  expect(cadre.session.getSnapshot().context.usage.outputTokens).toBeGreaterThan(0);
  expect(memory.usageLog.reduce((sum, record) => sum + record.usage.outputTokens, 0)).toBe(cadre.session.getSnapshot().context.usage.outputTokens);
  expect(cadre.audit.map((record) => record.type)).toEqual(expect.arrayContaining(['plan.rejected', 'plan.approved', 'file.written', 'task.finished']));
  // The finished task is stopped: the session has no child left.
  expect(Object.keys(cadre.session.getSnapshot().children)).toEqual([]);

  await cadre.agents.undo();
  expect(existsSync(join(cwd, 'src/greet.ts'))).toBe(false);
  expect(readFileSync(join(cwd, 'src/index.ts'), 'utf8')).toBe('export {};\n');
  expect(cadre.said()).toEqual(expect.arrayContaining([expect.stringMatching(/^Applied "Add a greet function \(full stop\)"/), 'Checked: every step of the plan is on disk.', expect.stringMatching(/^Undone/)]));
});

it('a file changed between the draft and the approval: nothing is written, and the model drafts again on the current content', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  server = await startModelServer({ script: { turns: [...loadModelScript('agent-greet').turns, ...loadModelScript('agent-greet').turns] } });
  let edits = 0;
  // Another process writes src/index.ts while the first plan waits at its prompt.
  const onAsk = () => void (edits++ === 0 && writeFileSync(join(cwd, 'src/index.ts'), "export const other = 1;\n"));
  const cadre = startAgents(cwd, { model: server, answers: [{ decision: 'approve' }, { decision: 'approve' }], onAsk, redraft: true });
  expect(await cadre.run('Add a greet function with tests and docs')).toBe(exitCodes.ok);
  expect(cadre.events).toContainEqual(expect.objectContaining({ type: 'output.error', code: 'plan.outdated', message: expect.stringContaining('src/index.ts changed after the plan was drafted') }));
  expect(cadre.asked).toHaveLength(2);
  expect(JSON.stringify(server.requests.find((request) => JSON.stringify(request.body).includes('draft the plan again on their current content'))?.body)).toContain('Add a greet function with tests and docs');
  expect(readFileSync(join(cwd, 'src/greet.ts'), 'utf8')).toContain('greet');
});

it('a rejected plan never reaches another task: a new task starts from the disk, a follow-up continues only a pending plan', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  const reply = (path: string, content: string) => [
    { toolCalls: [{ name: 'write-file', input: { path, content } }], usage: { inputTokens: 10, outputTokens: 5 } },
    { toolCalls: [{ name: 'propose-plan', input: { title: `Write ${path}` } }], usage: { inputTokens: 10, outputTokens: 5 } },
    { text: `Wrote ${path}.`, usage: { inputTokens: 10, outputTokens: 5 } },
  ];
  server = await startModelServer({ script: { turns: [...reply('src/rejected.ts', 'no\n'), ...reply('src/other.ts', 'b\n'), ...reply('src/more.ts', 'c\n')] } });
  const model = createModelClient({ provider: 'openai', model: 'm', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const memory = plainMemory();
  const steps = createUniversalAgentSteps({ config: { cwd }, model, memory, projectContext: async () => null, emit: () => undefined });
  const paths = (output: { plan: PlanEffectInput | null }) => output.plan?.draft.steps.map((step) => step.path) ?? [];

  const first = await steps.draft({ taskId: 't1', text: 'add rejected.ts', specialist: 'backend', feedback: null, followUp: false });
  expect(paths(first)).toEqual(['src/rejected.ts']);
  const rejected = memory.read();
  markPlanRejected(rejected, 'not this');
  memory.write(rejected);
  // A new, unrelated task: the rejected edit is not in its plan, and the model is told none of it is on disk.
  const second = await steps.draft({ taskId: 't2', text: 'add other.ts', specialist: 'backend', feedback: null, followUp: false });
  expect(paths(second)).toEqual(['src/other.ts']);
  expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('rejected: not this; none of its changes are on disk or staged');
  // A follow-up continues the pending plan of the task before.
  const third = await steps.draft({ taskId: 't3', text: 'and more.ts', specialist: 'backend', feedback: null, followUp: true });
  expect(paths(third)).toEqual(['src/other.ts', 'src/more.ts']);
});

it('without a model, a task the offline engine cannot do fails with what to configure', async () => {
  const cadre = startAgents(makeProject({ 'src/index.ts': 'export {};\n' }));
  expect(await cadre.run('Translate the comments into French')).toBe(exitCodes.notAvailable);
  expect(cadre.events).toContainEqual(expect.objectContaining({ type: 'output.error', code: 'model.none' }));
  expect(cadre.asked).toEqual([]);
});

it('in auto mode a security-sensitive task still asks for approval, and says why', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  server = await startModelServer({ script: 'agent-greet' });
  const cadre = startAgents(cwd, { model: server, answers: [{ decision: 'cancel' }] });
  cadre.session.send({ type: 'session.mode.set', mode: 'auto' });
  expect(await cadre.run('Add a greet function that checks the user password')).toBe(exitCodes.interrupted);
  expect(cadre.asked).toHaveLength(1);
  expect(cadre.events).toContainEqual({ type: 'output.message', level: 'warn', text: 'Auto mode, but this plan still asks for approval: the task mentions "password", which looks security-sensitive.' });
  expect(existsSync(join(cwd, 'src/greet.ts'))).toBe(false);
});

it('without a prompt, a plan that needs approval fails with the remedy and changes nothing', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n' });
  const cadre = startAgents(cwd);
  const draft = { title: 'Add a count', steps: [{ action: 'create-file' as const, path: 'src/count.ts', summary: 'count', content: 'export const count = 3;\n' }] };
  const code = await cadre.agents.runTask({ agent: 'universal-agent', text: 'add a count', prepared: async () => draft }, { signal: new AbortController().signal, interactive: false });
  expect(code).toBe(exitCodes.commandFailed);
  expect(cadre.events).toContainEqual(expect.objectContaining({ type: 'output.error', code: 'plan.needs-approval', remedy: expect.stringContaining('/auto on') }));
  expect(cadre.events.filter((event) => event.type === 'output.error')).toHaveLength(1);
  expect(existsSync(join(cwd, 'src/count.ts'))).toBe(false);
});

it('a task stopped with its session while the prompt asks ends as cancelled and changes nothing', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n' });
  const cadre = startAgents(cwd, { neverAnswer: true });
  const draft = { title: 'Add a count', steps: [{ action: 'create-file' as const, path: 'src/count.ts', summary: 'count', content: 'export const count = 3;\n' }] };
  const running = cadre.agents.runTask({ agent: 'universal-agent', text: 'add a count', prepared: async () => draft }, { signal: new AbortController().signal, interactive: true });
  await expect.poll(() => cadre.asked.length).toBe(1);
  cadre.session.stop();
  expect(await running).toBe(exitCodes.interrupted);
  expect(existsSync(join(cwd, 'src/count.ts'))).toBe(false);
});

it('after apply, the plan is type-checked with the project\'s own TypeScript, and a failure is said, naming the file', async () => {
  const cwd = makeProject({ 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }), 'src/index.ts': 'export {};\n' });
  mkdirSync(join(cwd, 'node_modules'), { recursive: true });
  symlinkSync(join(process.cwd(), 'node_modules', 'typescript'), join(cwd, 'node_modules', 'typescript'));
  const cadre = startAgents(cwd);
  cadre.session.send({ type: 'session.mode.set', mode: 'auto' });
  const draft = { title: 'Add a count', steps: [{ action: 'create-file' as const, path: 'src/count.ts', summary: 'count', content: 'export const count: number = "three";\n' }] };
  const code = await cadre.agents.runTask({ agent: 'universal-agent', text: 'add a count', prepared: async () => draft }, { signal: new AbortController().signal, interactive: false });
  expect(code).toBe(exitCodes.ok);
  expect(cadre.asked).toEqual([]);
  expect(cadre.said().find((line) => line.startsWith('Type check'))).toMatch(/^Type check FAILED: tsc --noEmit -p tsconfig\.json \(in \.\): 1 error\(s\) in files this plan changed[\s\S]*src\/count\.ts/);
}, 90_000);
