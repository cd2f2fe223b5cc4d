// universal-agent's actor logic inside the real task and plan statecharts: route, draft, reject with a reason, apply, verify, undo.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { planMachine } from '../../machines/plan.machine.js';
import { taskMachine } from '../../machines/task.machine.js';
import { createPlanActors, createUniversalAgentActors, createUniversalAgentSteps, toMachineSteps, type PlanStore } from '../../src/agents/actors.js';
import { createAgentSessionState, markPlanRejected } from '../../src/agents/session-state.js';
import type { OutputEvent } from '../../src/output.js';
import { createModelClient } from '../../src/model/client.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { loadModelScript } from '../support/model-server-script.js';
import { makeProject } from './tools/context.js';

let server: ModelServer | undefined;
afterEach(async () => server?.close());

it('drafts a plan to pending-approval, redrafts after a rejection with its reason, then applies, verifies and undoes it', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  server = await startModelServer({ script: { turns: [...loadModelScript('agent-greet').turns, ...loadModelScript('agent-greet-followup').turns] } });
  const model = createModelClient({ provider: 'openai', model: 'm', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const session = createAgentSessionState();
  const plans: PlanStore = new Map();
  const deps = { config: { cwd }, model, session, plans, projectContext: async () => null, emit: (e: OutputEvent) => events.push(e) };

  const task = createActor(taskMachine.provide({
    actors: { ...createUniversalAgentActors(deps), runAttempt: fromPromise(async () => ({ summary: 'applied' })) },
  }), { input: { taskId: 't1', agent: 'universal-agent', text: 'Add a greet function with tests and docs', autoApprove: false, deadline: null } }).start();

  await waitFor(task, (s) => s.matches({ active: 'pending-approval' }));
  const first = task.getSnapshot().context;
  expect(first.specialist).toBe('backend');
  expect(session.usage.outputTokens).toBe(435);
  expect(session.lastPlan?.status).toBe('pending');

  task.send({ type: 'plan.rejected', reason: 'use a full stop' });
  await waitFor(task, (s) => s.matches({ active: 'pending-approval' }) && s.context.planId !== first.planId);
  const planId = task.getSnapshot().context.planId!;
  expect(JSON.stringify(server.requests[5]?.body)).toContain('I rejected the plan. use a full stop');
  const stored = plans.get(planId)!;
  expect(stored.draft.steps.find((s) => s.path === 'src/greet.ts')?.content).toContain('Hello, ${name}.');
  expect(stored.sensitiveReason).toBeNull();

  const plan = createActor(planMachine.provide({ actors: createPlanActors(deps) }), {
    input: { planId, steps: toMachineSteps(stored.draft, cwd), autoApprove: false },
  }).start();
  plan.send({ type: 'plan.ready' });
  expect(plan.getSnapshot().value).toBe('pending-approval');
  expect(plan.getSnapshot().context.steps[0]).toMatchObject({ id: '1', action: 'create-file', path: 'src/greet.ts', added: 3, removed: 0 });
  plan.send({ type: 'plan.approved' });
  await waitFor(plan, (s) => s.matches('applied'));
  expect(plan.getSnapshot().context.differences).toEqual([]);
  expect(readFileSync(join(cwd, 'src/greet.ts'), 'utf8')).toContain('Hello, ${name}.');
  expect(session.lastPlan?.status).toBe('applied');

  plan.send({ type: 'plan.undo' });
  await waitFor(plan, (s) => s.matches('undone'));
  expect(existsSync(join(cwd, 'src/greet.ts'))).toBe(false);
  expect(readFileSync(join(cwd, 'src/index.ts'), 'utf8')).toBe('export {};\n');
  const said = events.flatMap((e) => (e.type === 'output.message' ? [e.text] : []));
  expect(said).toEqual(expect.arrayContaining([expect.stringMatching(/^Applied "Add a greet function \(full stop\)"/), 'Checked: every step of the plan is on disk.', expect.stringMatching(/^Undone/)]));
  task.stop();
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
  const session = createAgentSessionState();
  const plans: PlanStore = new Map();
  const steps = createUniversalAgentSteps({ config: { cwd }, model, session, plans, projectContext: async () => null, emit: () => undefined });
  const paths = (planId: string | null) => (planId ? plans.get(planId)?.draft.steps.map((step) => step.path) : []);

  const first = await steps.draft({ taskId: 't1', text: 'add rejected.ts', specialist: 'backend', feedback: null, followUp: false });
  expect(paths(first.planId)).toEqual(['src/rejected.ts']);
  markPlanRejected(session, 'not this');
  // A new, unrelated task: the rejected edit is not in its plan, and the model is told none of it is on disk.
  const second = await steps.draft({ taskId: 't2', text: 'add other.ts', specialist: 'backend', feedback: null, followUp: false });
  expect(paths(second.planId)).toEqual(['src/other.ts']);
  expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('rejected: not this; none of its changes are on disk or staged');
  // A follow-up continues the pending plan of the task before.
  const third = await steps.draft({ taskId: 't3', text: 'and more.ts', specialist: 'backend', feedback: null, followUp: true });
  expect(paths(third.planId)).toEqual(['src/other.ts', 'src/more.ts']);
});

it('without a model, drafting fails with what to configure', async () => {
  const cwd = makeProject({});
  const deps = { config: { cwd }, model: null, session: createAgentSessionState(), plans: new Map(), projectContext: async () => null, emit: () => undefined };
  const task = createActor(taskMachine.provide({ actors: { ...createUniversalAgentActors(deps), runAttempt: fromPromise(async () => ({ summary: '' })) } }), {
    input: { taskId: 't2', agent: 'universal-agent', text: 'Add a page', autoApprove: false, deadline: null },
  }).start();
  const done = await waitFor(task, (s) => s.status === 'done');
  expect(done.context.error).toMatch(/needs a model/);
});

it('in auto mode a security-sensitive task still asks for approval, and says why', async () => {
  const cwd = makeProject({ 'src/index.ts': 'export {};\n', 'README.md': '# demo\n' });
  server = await startModelServer({ script: 'agent-greet' });
  const model = createModelClient({ provider: 'anthropic', model: 'm', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const deps = { config: { cwd }, model, session: createAgentSessionState(), plans: new Map(), projectContext: async () => null, emit: (e: OutputEvent) => events.push(e), autoMode: () => true };
  const task = createActor(taskMachine.provide({ actors: { ...createUniversalAgentActors(deps), runAttempt: fromPromise(async () => ({ summary: '' })) } }), {
    input: { taskId: 't3', agent: 'universal-agent', text: 'Add a greet function that checks the user password', autoApprove: true, deadline: null },
  }).start();
  await waitFor(task, (s) => s.matches({ active: 'pending-approval' }));
  expect(events).toContainEqual({ type: 'output.message', level: 'warn', text: 'Auto mode, but this plan still asks for approval: the task mentions "password", which looks security-sensitive.' });
  task.stop();
});

it('after apply, the plan is type-checked with the project\'s own TypeScript, and a failure is said, naming the file', async () => {
  const cwd = makeProject({ 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }), 'src/index.ts': 'export {};\n' });
  mkdirSync(join(cwd, 'node_modules'), { recursive: true });
  symlinkSync(join(process.cwd(), 'node_modules', 'typescript'), join(cwd, 'node_modules', 'typescript'));
  const events: OutputEvent[] = [];
  const plans: PlanStore = new Map();
  const deps = { config: { cwd }, model: null, session: createAgentSessionState(), plans, projectContext: async () => null, emit: (e: OutputEvent) => events.push(e) };
  plans.set('p1', { draft: { title: 'Add a count', steps: [{ action: 'create-file', path: 'src/count.ts', summary: 'count', content: 'export const count: number = "three";\n' }] }, task: 'add a count', sensitiveReason: null, applied: null });
  const plan = createActor(planMachine.provide({ actors: createPlanActors(deps as never) }), {
    input: { planId: 'p1', steps: toMachineSteps(plans.get('p1')!.draft, cwd), autoApprove: true },
  }).start();
  plan.send({ type: 'plan.ready' });
  await waitFor(plan, (s) => s.matches('applied'), { timeout: 60_000 });
  const said = events.flatMap((e) => (e.type === 'output.message' ? [e.text] : []));
  expect(said.find((line) => line.startsWith('Type check'))).toMatch(/^Type check FAILED: tsc --noEmit -p tsconfig\.json \(in \.\): 1 error\(s\) in files this plan changed[\s\S]*src\/count\.ts/);
}, 90_000);
