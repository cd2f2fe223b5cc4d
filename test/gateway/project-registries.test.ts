// The registries a project's own .npmrc, .yarnrc and .yarnrc.yml name (scoped ones too) join its container's allowlist; links are not followed.
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { projectRegistryHosts } from '../../src/gateway/registries.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cadre-project-registries-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('reads default and scoped registries from the three files, in their own syntaxes', async () => {
  await writeFile(join(dir, '.npmrc'), 'registry=https://npm.internal.test/\n@acme:registry = "https://acme.pkgs.test/npm/"\n//npm.internal.test/:_authToken=${TOKEN}\nshamefully-hoist=true\n');
  await writeFile(join(dir, '.yarnrc'), 'registry "https://yarn.mirror.test"\n"@corp:registry" "https://corp.mirror.test/"\n');
  await writeFile(join(dir, '.yarnrc.yml'), 'npmRegistryServer: "https://berry.mirror.test"\nnpmScopes:\n  team:\n    npmRegistryServer: https://team.berry.test\n');
  expect((await projectRegistryHosts(dir)).sort()).toEqual(['acme.pkgs.test', 'berry.mirror.test', 'corp.mirror.test', 'npm.internal.test', 'team.berry.test', 'yarn.mirror.test']);
});

it('takes nothing from a link, a huge file, or a value that is no http(s) URL', async () => {
  const outside = join(dir, 'outside');
  await writeFile(outside, 'registry=https://linked.test/\n');
  await symlink(outside, join(dir, '.npmrc'));
  await writeFile(join(dir, '.yarnrc'), `registry "https://big.test/"\n${'#'.repeat(70 * 1024)}\n`);
  await writeFile(join(dir, '.yarnrc.yml'), 'npmRegistryServer: "${REGISTRY}"\nnpmRegistryServer: file:///etc/passwd\n');
  expect(await projectRegistryHosts(dir)).toEqual([]);
});
