// The Node real projects ask for (engines, .nvmrc, .node-version) against the container's, and what /vm-setup-dev does about it.
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { checkNode, nodeRequirements, planNode } from '../../src/container/node-engine.js';
import { unpackCorpus, unpackVendored } from '../support/corpus.js';

/** npm 10's own engines.node, as the sandbox image's npm declares it. */
const npmEngines = '^18.17.0 || >=20.5.0';
const disposals: (() => void)[] = [];
const unpacked = (copy: { root: string; dispose: () => void }): string => {
  disposals.push(copy.dispose);
  return copy.root;
};
afterEach(() => {
  for (const dispose of disposals.splice(0)) dispose();
});

it('koa-typescript-rest asks for Node 14 in engines: not met by Node 22, and not installed because npm 10 cannot run on it', async () => {
  const checks = checkNode(await nodeRequirements(unpacked(unpackCorpus('koa-typescript-rest'))), 'v22.23.3');
  expect(checks).toEqual([{ source: 'package.json engines.node', range: '14.x.x', satisfied: false }]);
  const plan = planNode(checks, npmEngines);
  expect(plan).toEqual({ action: 'keep', reason: expect.stringContaining("package.json engines.node asks for Node 14.x.x, but the container's npm needs Node ^18.17.0 || >=20.5.0: a Node that old would break npm") });
});

it("tiny-invariant's .nvmrc (18.4.0) is below what npm 10 runs on: said, not installed", async () => {
  const checks = checkNode(await nodeRequirements(unpacked(unpackVendored('tiny-invariant'))), 'v22.23.3');
  expect(checks).toEqual([{ source: '.nvmrc', range: '18.4.0', satisfied: false }]);
  expect(planNode(checks, npmEngines)).toMatchObject({ action: 'keep' });
});

it('vitesse asks for nothing: no check, nothing to install', async () => {
  const checks = checkNode(await nodeRequirements(unpacked(unpackCorpus('vitesse'))), 'v22.23.3');
  expect(checks).toEqual([]);
  expect(planNode(checks, npmEngines)).toEqual({ action: 'none' });
});

it('installs the Node of .nvmrc before the range of engines when neither is met and npm runs on it', async () => {
  const root = unpacked(unpackCorpus('koa-typescript-rest'));
  await writeFile(join(root, '.nvmrc'), '# the team runs\nv20\n');
  const checks = checkNode(await nodeRequirements(root), 'v22.23.3');
  expect(checks.map((check) => [check.source, check.range, check.satisfied])).toEqual([['package.json engines.node', '14.x.x', false], ['.nvmrc', '20', false]]);
  expect(planNode(checks, npmEngines)).toEqual({ action: 'install', range: '20', source: '.nvmrc' });
  expect(checkNode(checks, 'v20.19.5').map((check) => check.satisfied)).toEqual([false, true]);
});

it('skips a linked version file and does not judge an alias such as lts/*', async () => {
  const root = unpacked(unpackCorpus('vitesse'));
  await symlink('/etc/hostname', join(root, '.nvmrc'));
  await writeFile(join(root, '.node-version'), 'lts/*\n');
  const checks = checkNode(await nodeRequirements(root), 'v22.23.3');
  expect(checks).toEqual([{ source: '.node-version', range: 'lts/*' }]);
  expect(planNode(checks, npmEngines)).toEqual({ action: 'none' });
});
