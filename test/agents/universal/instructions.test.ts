// Project instructions: AGENTS.md / CLAUDE.md from the root down to the folders a task touches, within a budget, into the model's prompt.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPermissions } from '../../../src/agents/tools/permissions.js';
import { createInstructionLoader, folderChain, pathsNamedIn } from '../../../src/agents/universal/instructions.js';
import { runUniversalAgent } from '../../../src/agents/universal/run.js';
import type { OutputEvent } from '../../../src/output.js';
import { loadTokenCounter } from '../../../src/gateway/token-estimate.js';
import { createModelClient } from '../../../src/model/client.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { makeProject } from '../tools/context.js';

const realAgentsMd = readFileSync(new URL('../../fixtures/instructions/vercel-ai-AGENTS.md', import.meta.url), 'utf8');

let server: ModelServer | undefined;
afterEach(async () => server?.close());

function project() {
  return makeProject({
    'AGENTS.md': realAgentsMd,
    'packages/ai/CLAUDE.md': '# packages/ai\nKeep streamText backwards compatible.\n',
    'packages/ai/src/index.ts': 'export {};\n',
    'packages/openai/AGENTS.md': '# openai provider\nResponse schemas use .nullish().\n',
    'packages/openai/CLAUDE.md': 'never read: AGENTS.md wins in this folder\n',
    'packages/openai/src/chat.ts': 'export {};\n',
    'examples/README.md': '# examples\n',
  });
}

async function loader(root: string, budgetTokens?: number) {
  return createInstructionLoader({ permissions: createPermissions(root), countTokens: await loadTokenCounter(), ...(budgetTokens ? { budgetTokens } : {}) });
}

describe('the instruction loader', () => {
  it('reads AGENTS.md, else CLAUDE.md, from the root down to each touched folder, each folder once', async () => {
    const root = project();
    const load = await loader(root);
    const first = await load.forPaths(['packages/ai/src/index.ts']);
    expect(first.map((file) => file.path)).toEqual(['AGENTS.md', 'packages/ai/CLAUDE.md']);
    expect(first[0]?.text).toBe(realAgentsMd.trim());
    expect(first[0]?.tokens).toBeGreaterThan(2_000);
    const second = await load.forPaths(['packages/openai/src/chat.ts', 'packages/ai/src/index.ts']);
    expect(second.map((file) => [file.path, file.text])).toEqual([['packages/openai/AGENTS.md', '# openai provider\nResponse schemas use .nullish().']]);
    expect(load.loaded().map((file) => file.path)).toEqual(['AGENTS.md', 'packages/ai/CLAUDE.md', 'packages/openai/AGENTS.md']);
  });

  it('stops at the token budget, cutting the file that passes it and saying so', async () => {
    const load = await loader(project(), 1_000);
    const [file, ...rest] = await load.forPaths(['packages/ai/src/index.ts']);
    expect(rest).toEqual([]);
    expect(file?.truncated).toBe(true);
    expect(file?.tokens).toBeLessThanOrEqual(1_000);
    expect(file?.text).toMatch(/\[… the rest of AGENTS\.md is left out: the instructions budget is spent\]$/);
  });

  it('never reads through a link that leads out of the project', async () => {
    const root = makeProject({ 'src/a.ts': '' });
    const outside = join(tmpdir(), `cadre-outside-${process.pid}.md`);
    writeFileSync(outside, 'secret instructions from outside');
    symlinkSync(outside, join(root, 'AGENTS.md'));
    expect(await (await loader(root)).forPaths(['src/a.ts'])).toEqual([]);
  });

  it('folder chains and the paths a task names', () => {
    expect(folderChain('packages/ai/src/index.ts')).toEqual(['.', 'packages', 'packages/ai', 'packages/ai/src']);
    expect(folderChain('README.md')).toEqual(['.']);
    expect(folderChain('./src/api/')).toEqual(['.', 'src', 'src/api']);
    expect(pathsNamedIn('Fix the bug in packages/openai/src/chat.ts and update README.md (see https://x.dev/a/b)')).toEqual(['packages/openai/src/chat.ts', 'README.md']);
  });
});

it('the run puts the root and the named folders\' instructions in the system prompt, adds a new folder\'s to the tool result that reaches it, and says which it read', async () => {
  const cwd = project();
  server = await startModelServer({ script: { turns: [{ toolCalls: [{ name: 'read-file', input: { path: 'packages/openai/src/chat.ts' } }] }, { text: 'Read it.' }] } });
  const model = createModelClient({ provider: 'anthropic', model: 'test-model', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const result = await runUniversalAgent({
    task: 'Explain packages/ai/src/index.ts', model, projectContext: null, config: { cwd }, transcript: [], lastPlan: null, execOutputs: [],
    emit: (event) => events.push(event),
  });
  const system = JSON.stringify(server.requests[0]?.body.system);
  expect(system).toContain('--- AGENTS.md ---');
  expect(system).toContain('Never use `JSON.parse` directly in production code');
  expect(system).toContain('Keep streamText backwards compatible.');
  expect(system).not.toContain('Response schemas use .nullish()');
  const second = JSON.stringify(server.requests[1]?.body.messages);
  expect(second).toContain('[Instructions from packages/openai/AGENTS.md, which apply to files under packages/openai/:]');
  expect(second).toContain('Response schemas use .nullish().');
  expect(second).not.toContain('never read');
  const said = events.flatMap((e) => (e.type === 'output.message' ? [e.text] : []));
  expect(said).toContain('Instructions read: AGENTS.md, packages/ai/CLAUDE.md');
  expect(said).toContain('Instructions read: packages/openai/AGENTS.md');
  expect(result.instructions).toEqual(['AGENTS.md', 'packages/ai/CLAUDE.md', 'packages/openai/AGENTS.md']);
});
