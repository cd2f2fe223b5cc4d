// `cadre --trace` of a universal-agent plan task on a real React project: every actor is in the one tree under `cli`, the plan under its task.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';

interface ActorLine { type: string; rootId: string; actorId: string; actor: string; parentId?: string; name: string }

const copies: CorpusCopy[] = [];
afterAll(() => copies.forEach((copy) => copy.dispose()));

it('shows every actor under the one cli root, with plan a child of task:<id> under the session', async () => {
  const copy = unpackCorpus('material-kit-react');
  copies.push(copy);
  const { home } = await tempProject('cadre-trace-');
  const trace = join(home, 'trace.jsonl');
  const run = await runCli(['--trace', trace, '-c', '/auto on', '-c', '/agent universal-agent "create a component SearchBox with props title:string onSearch"'], { cwd: copy.root, home });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('generate-component');

  const lines = readFileSync(trace, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string });
  const actors = lines.filter((line): line is ActorLine => line.type === '@xstate.actor');
  const byId = new Map(actors.map((actor) => [actor.actorId, actor]));
  const roots = actors.filter((actor) => actor.parentId === undefined);
  expect(roots.map((root) => root.name)).toEqual(['cli']);
  const [root] = roots;
  // One root id for every event of the run: nothing is started outside the system.
  expect(new Set(lines.map((line) => (line as { rootId?: string }).rootId))).toEqual(new Set([root?.actorId]));
  const pathOf = (actor: ActorLine): string[] => {
    const parent = actor.parentId === undefined ? undefined : byId.get(actor.parentId);
    return parent ? [...pathOf(parent), actor.actor] : [actor.name];
  };
  for (const actor of actors) expect(pathOf(actor)[0], `${actor.actor} has no path to the root`).toBe('cli');
  const plans = actors.filter((actor) => actor.name === 'plan');
  expect(plans).toHaveLength(1);
  const path = pathOf(plans[0] as ActorLine);
  expect(path.slice(0, 2)).toEqual(['cli', 'session']);
  expect(path[2]).toMatch(/^task:[0-9a-f]+$/);
  expect(path[3]).toBe('plan');
  // The plan's effects ran under it, and it ended applied.
  expect(actors.filter((actor) => actor.parentId === plans[0]?.actorId).map((actor) => actor.actor)).toEqual(['applyPlan', 'verifyPlan']);
  const last = lines.filter((line) => line.type === '@xstate.snapshot' && (line as { actorId?: string }).actorId === plans[0]?.actorId).at(-1) as { snapshot?: { value?: unknown } } | undefined;
  expect(last?.snapshot?.value).toBe('applied');
}, 120_000);
