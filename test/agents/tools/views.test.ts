// The one set of tools over both file views, on a real project: the host's staged view of the person's project and the container's workspace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { universalTools } from '../../../src/agents/tools/index.js';
import { runnerTools } from '../../../src/runner/tools/index.js';
import { runRunnerTool } from '../../../src/runner/tools/run-tool.js';
import { runTool } from '../../../src/agents/tools/wrapper.js';
import { unpackCorpus } from '../../support/corpus.js';
import { toolContext } from './context.js';

const project = unpackCorpus('node-express-boilerplate');
const workspace = unpackCorpus('node-express-boilerplate');
afterAll(() => {
  project.dispose();
  workspace.dispose();
});

const host = toolContext(project.root);
const onHost = async (name: string, input: unknown) => (await runTool(universalTools, { id: 'h', name, input }, host.context, { kinds: ['read', 'write'] })).result;
const inContainer = (name: string, input: unknown) => runRunnerTool(runnerTools, { id: 'c', name, input }, { workspace: workspace.root, emit: () => undefined, signal: new AbortController().signal });

it('reads, lists and searches the same project alike, except what the person\'s read permissions hide on the host', async () => {
  for (const [name, input] of [
    ['read-file', { path: 'src/app.js' }],
    ['read-file', { path: 'src/config/config.js', startLine: 5, endLine: 20 }],
    ['search', { query: 'catchAsync', path: 'src' }],
    ['search', { query: 'router\\.(get|post)', regex: true, path: 'src/routes' }],
    ['list-files', { path: 'src' }],
  ] as const) {
    const [fromHost, fromContainer] = [await onHost(name, input), await inContainer(name, input)];
    expect(fromHost.isError, `${name} ${JSON.stringify(input)}`).toBe(false);
    expect(fromHost.output).not.toMatch(/^(No matches\.|\(no files\))$/);
    expect(fromContainer.output, `${name} ${JSON.stringify(input)}`).toBe(fromHost.output);
  }
  const hostList = (await onHost('list-files', {})).output.split('\n');
  const containerList = (await inContainer('list-files', {})).output.split('\n');
  expect(hostList.at(-1)).toBe('[1 files hidden by the read permissions]');
  expect(containerList.filter((path) => !hostList.includes(path))).toEqual(['.env.example']);
});

it('an edit is staged on the host and written in the container; both read it back the same', async () => {
  const edit = { path: 'src/app.js', search: "const express = require('express');", replace: "const express = require('express'); // the web framework" };
  const before = readFileSync(join(project.root, 'src/app.js'), 'utf8');
  expect((await onHost('edit-file', edit)).output).toMatch(/^Staged: edit src\/app\.js at line \d+\. It will be written when the user approves the plan\.$/);
  expect((await inContainer('edit-file', edit)).output).toMatch(/^edited src\/app\.js at line \d+\.$/);
  expect(readFileSync(join(project.root, 'src/app.js'), 'utf8')).toBe(before);
  expect(readFileSync(join(workspace.root, 'src/app.js'), 'utf8')).toContain('// the web framework');
  expect((await inContainer('read-file', { path: 'src/app.js' })).output).toBe((await onHost('read-file', { path: 'src/app.js' })).output);
});
