// /init's starting AGENTS.md, drafted offline from real projects of the corpus: their own commands, stack and conventions.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { draftAgentsFile } from '../../src/agents/init-file.js';
import { createPermissions } from '../../src/agents/tools/permissions.js';
import { createInstructionLoader } from '../../src/agents/universal/instructions.js';
import { loadTokenCounter } from '../../src/gateway/token-estimate.js';
import { analyzeProject } from '../../src/project/context.js';
import { unpackCorpus, type UnpackedProject } from '../support/corpus.js';

let unpacked: UnpackedProject | undefined;
afterEach(() => unpacked?.dispose());

async function draftFor(name: string): Promise<string> {
  unpacked = unpackCorpus(name);
  const { context } = await analyzeProject({ cwd: unpacked.root });
  const draft = draftAgentsFile(context);
  expect(draft.steps.map((step) => [step.action, step.path])).toEqual([['add-docs', 'AGENTS.md']]);
  return draft.steps[0]?.content ?? '';
}

describe('the starting AGENTS.md', () => {
  it('node-express-boilerplate (yarn, Express, Jest, CommonJS): its own scripts, not lifecycle hooks', async () => {
    const text = await draftFor('node-express-boilerplate');
    expect(text).toContain('Instructions for AI coding agents working on create-nodejs-express-app.');
    expect(text).toContain('- Package manager: yarn');
    expect(text).toMatch(/- Frameworks: .*Express/);
    expect(text).toContain('- Languages: JavaScript (50 files)');
    expect(text).toContain('- Tests: jest');
    expect(text).toContain('- Install: `yarn install`');
    expect(text).toContain('- Test: `yarn test` (runs `jest -i --colors --verbose --detectOpenHandles`)');
    expect(text).toContain('- Lint: `yarn lint` (runs `eslint .`)');
    expect(text).toContain("- Format: `yarn prettier` (runs `prettier --check **/*.js`)");
    expect(text).toContain('- Start in development: `yarn dev`');
    expect(text).toMatch(/- Other scripts: .*`yarn coverage`/);
    expect(text).not.toContain('yarn prepare');
    expect(text).toContain('No script was found to build; say here how it is done.');
    expect(text).toMatch(/- Modules: CommonJS/);
    expect(text).toMatch(/- Test files: 10 test files, mostly under `tests\/unit\/`, named `\*\.test\.js`/);
    expect(text).toMatch(/- `src\/`: \d+ files/);
  });

  it('vitesse (pnpm, Vue, Vitest): commands through pnpm, type-check found', async () => {
    const text = await draftFor('vitesse');
    expect(text).toContain('- Package manager: pnpm');
    expect(text).toMatch(/- Frameworks: .*Vue/);
    expect(text).toContain('- Build: `pnpm build` (runs `vite-ssg build`)');
    expect(text).toContain('- Test: `pnpm test` (runs `vitest`)');
    expect(text).toContain('- Type-check: `pnpm typecheck` (runs `vue-tsc --noEmit`)');
    expect(text).not.toContain('postinstall');
    expect(text).not.toContain('No script was found');
  });

  it('nestjs-boilerplate: the file it writes is read back as the project\'s instructions, beside its CLAUDE.md', async () => {
    const text = await draftFor('nestjs-boilerplate');
    expect(text).toMatch(/- Frameworks: .*NestJS/);
    const root = unpacked?.root ?? '';
    const loader = createInstructionLoader({ permissions: createPermissions(root), countTokens: await loadTokenCounter() });
    // Before /init: the project's own CLAUDE.md is what universal-agent reads.
    const [before] = await loader.forPaths(['src/app.module.ts']);
    expect(before?.path).toBe('CLAUDE.md');
    expect(before?.text).toMatch(/Do not hand-write entity files\./);
    // After /init: AGENTS.md is preferred in that folder.
    writeFileSync(join(root, 'AGENTS.md'), text);
    const after = createInstructionLoader({ permissions: createPermissions(root), countTokens: await loadTokenCounter() });
    const [read] = await after.forPaths(['src/app.module.ts']);
    expect(read?.path).toBe('AGENTS.md');
    expect(read?.text).toBe(text.trim());
  });
});
