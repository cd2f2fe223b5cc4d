// Component generation on examples/react-shop, checked with the project's own tsc, eslint and vitest (installed from the registry, cached).
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { copyExample } from '../../project/helpers.js';
import { applyToCopy, exampleToolchain, lint, runTests, typeCheck } from './toolchain.js';

const folders: string[] = [];
let source: string;
let context: ProjectContext;
let toolchain: string;

beforeAll(async () => {
  source = await copyExample('react-shop');
  folders.push(source);
  context = (await analyzeProject({ cwd: source })).context;
  toolchain = await exampleToolchain('react-shop');
}, 600_000);
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('component generation on react-shop', () => {
  let plan: PlanDraft;
  beforeAll(async () => {
    plan = await generateFromTask('create a component SearchBox with props title:string count?:int tags:string[] onSearch state query:string open:boolean', { cwd: source, context });
  });

  it('follows the project: components folder, PascalCase file, CSS module on the theme variables, vitest test, index re-export', () => {
    expect(plan.steps.map((step) => [step.action, step.path])).toEqual([
      ['create-file', 'src/components/SearchBox.tsx'],
      ['create-file', 'src/components/SearchBox.module.css'],
      ['create-tests', 'src/components/SearchBox.test.tsx'],
      ['update-exports', 'src/components/index.ts'],
    ]);
    const [component, stylesheet, test, index] = plan.steps.map((step) => step.content ?? '');
    expect(component).toContain('export interface SearchBoxProps {\n  title: string;\n  count?: number;\n  tags: string[];\n  onSearch: (query: string) => void;\n}');
    expect(component).toContain('const [open, setOpen] = useState(false);');
    // A search box has a search input; submitting it calls onSearch with what was typed.
    expect(component).toMatch(/<input\s+type="search"[\s\S]*value=\{query\}/);
    expect(component).toContain('<form onSubmit={handleSearch}>');
    expect(component).toContain('onSearch(query);');
    expect(component).toContain('import styles from \'./SearchBox.module.css\';');
    expect(stylesheet).toContain('background: var(--color-surface);');
    expect(stylesheet).toContain('background: var(--color-primary);');
    expect(test).toContain('from \'vitest\'');
    expect(index).toMatch(/export \{ ProductList \} from '\.\/ProductList';\nexport \{ SearchBox \} from '\.\/SearchBox';\n$/);
  });

  it('passes the project\'s type check, lint and its own test', async () => {
    const folder = await applyToCopy('react-shop', plan, toolchain);
    folders.push(folder);
    const files = plan.steps.filter((step) => /\.[jt]sx?$/.test(step.path)).map((step) => step.path);
    const [types, lints, tests] = await Promise.all([typeCheck(folder, toolchain), lint(folder, toolchain, files), runTests(folder, toolchain, ['src/components/SearchBox.test.tsx'])]);
    expect(types.output).toBe('');
    expect(types.ok).toBe(true);
    expect(lints).toEqual({ ok: true, output: '' });
    expect(tests.output).toContain('1 passed');
    expect(tests.ok).toBe(true);
  }, 120_000);

  it('a component with no props or state still checks', async () => {
    const bare = await generateFromTask('generate a React component called EmptyState', { cwd: source, context });
    const folder = await applyToCopy('react-shop', bare, toolchain);
    folders.push(folder);
    const [types, lints] = await Promise.all([typeCheck(folder, toolchain), lint(folder, toolchain, bare.steps.filter((step) => /\.[jt]sx?$/.test(step.path)).map((step) => step.path))]);
    expect(types.output).toBe('');
    expect(lints.output).toBe('');
  }, 120_000);
});
