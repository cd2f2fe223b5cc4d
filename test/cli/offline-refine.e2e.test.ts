// A follow-up after an offline generation refines it, as a model session would: on a real Vue project (vitesse, corpus), typed
// at the prompt after the generation was applied, and refused with the reason when the generated file was edited since.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { runCli, tempProject } from '../support/cli.js';

let project: CorpusCopy | undefined;
afterEach(() => project?.dispose());

it('"add a prop disabled:boolean" typed after "create a component SearchBox…" adds the prop to the component it made', async () => {
  project = unpackCorpus('vitesse');
  const { home } = await tempProject();
  const run = await runCli([], { cwd: project.root, home, input: '/auto on\ncreate a component SearchBox with props label:string\nadd a prop disabled:boolean\n' });
  expect(run.stdout + run.stderr).toContain('Refining the last generation ("create a component SearchBox with props label:string") with: "add a prop disabled:boolean".');
  const component = readFileSync(join(project.root, 'src/components/SearchBox.vue'), 'utf8');
  expect(component).toMatch(/label: string\n\s*disabled: boolean/);
  expect(component).toContain('{{ disabled ? ');
  expect(run.stdout + run.stderr).not.toContain('already exists');
}, 60_000);

it('a refinement of a file edited since the generation says so and changes nothing', async () => {
  project = unpackCorpus('vitesse');
  const { home } = await tempProject();
  const path = join(project.root, 'src/components/SearchBox.vue');
  // The person edits the component between the generation and the follow-up (a /exec of sed stands in for an editor).
  const run = await runCli([], { cwd: project.root, home, input: `/auto on\ncreate a component SearchBox with props label:string\n/exec sed -i 's/Label/Title/' ${path}\nadd a prop disabled:boolean\n` });
  expect(run.stdout + run.stderr).toMatch(/src\/components\/SearchBox\.vue changed since cadre drafted/);
  const component = readFileSync(path, 'utf8');
  expect(component).toContain('Title');
  expect(component).not.toContain('disabled');
}, 60_000);
