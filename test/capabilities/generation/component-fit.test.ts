// Components that a developer of the project would write, on real corpus projects: Next.js App Router components with hooks or event handlers say 'use client' (taxonomy), and every declared prop is used (taxonomy, vitesse).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { type CorpusCopy, unpackCorpus } from '../../support/corpus.js';

const copies = new Map<string, { copy: CorpusCopy; context: ProjectContext }>();
beforeAll(async () => {
  for (const name of ['taxonomy', 'vitesse']) {
    const copy = unpackCorpus(name);
    copies.set(name, { copy, context: (await analyzeProject({ cwd: copy.root })).context });
  }
}, 120_000);
afterAll(() => {
  for (const { copy } of copies.values()) copy.dispose();
});

async function component(project: string, task: string): Promise<string> {
  const { copy, context } = copies.get(project) as { copy: CorpusCopy; context: ProjectContext };
  const plan = await generateFromTask(task, { cwd: copy.root, context });
  return plan.steps[0]?.content ?? '';
}

describe('Next.js App Router (taxonomy)', () => {
  it('a component with useState starts with "use client", in the project\'s quotes', async () => {
    const source = await component('taxonomy', 'create a component Counter with state count:int');
    expect(source).toContain('useState(0)');
    expect(source.startsWith('"use client"\n\n')).toBe(true);
  });

  it('a component with an event handler prop and a click handler is a client component too', async () => {
    expect((await component('taxonomy', 'create a component ReviewCard with props title:string onReport')).startsWith('"use client"\n\n')).toBe(true);
  });

  it('a component with neither stays a server component', async () => {
    expect(await component('taxonomy', 'create a component Price with props amount:number')).not.toContain('use client');
  });
});

describe('declared props are used', () => {
  it('React (taxonomy): label:string on a component without a form is shown, not left unused', async () => {
    const source = await component('taxonomy', 'create a component Badge with props label:string');
    expect(source).toContain('{ label }: BadgeProps');
    expect(source).toContain('{label}');
  });

  it('Vue (vitesse): the same prop is rendered in the template', async () => {
    const source = await component('vitesse', 'create a component Badge with props label:string');
    expect(source).toContain('label: string');
    expect(source).toContain('{{ label }}');
  });
});
