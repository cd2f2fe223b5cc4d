// The host's package-manager configuration is asked once per process and asked again when it changes.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { packageManagerRegistryHosts } from '../../src/gateway/registries.js';

let home = '';
let env: NodeJS.ProcessEnv = {};
const asked = (): string[] => readFileSync(join(home, 'asked.log'), 'utf8').trim().split('\n').filter(Boolean);

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cadre-pm-config-'));
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(home, 'asked.log'), '');
  // npm and yarn as a host has them: each answer read from the user's configuration file, each question logged.
  for (const command of ['npm', 'yarn']) {
    writeFileSync(join(bin, command), `#!/bin/sh\necho "${command} $*" >> "$HOME/asked.log"\n[ "$3" = registry ] && sed -n 's/^registry=//p' "$HOME/.npmrc"\nexit 0\n`);
    chmodSync(join(bin, command), 0o755);
  }
  writeFileSync(join(home, '.npmrc'), 'registry=http://first.cadre-test.invalid/\n');
  env = { PATH: `${bin}:/usr/bin:/bin`, HOME: home };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

it('asks npm and yarn once for any number of gateways while their configuration stays the same', async () => {
  const first = await packageManagerRegistryHosts({ cwd: home, env });
  const again = await Promise.all([1, 2, 3].map(() => packageManagerRegistryHosts({ cwd: home, env })));
  expect(first).toEqual(['first.cadre-test.invalid']);
  expect(again).toEqual([first, first, first]);
  expect(asked()).toHaveLength(3);
});

it('asks again once the user changes the configuration', async () => {
  expect(await packageManagerRegistryHosts({ cwd: home, env })).toEqual(['first.cadre-test.invalid']);
  writeFileSync(join(home, '.npmrc'), 'registry=http://second.cadre-test.invalid:4873/\n');
  expect(await packageManagerRegistryHosts({ cwd: home, env })).toEqual(['second.cadre-test.invalid']);
  expect(await packageManagerRegistryHosts({ cwd: home, env: { ...env, npm_config_registry: 'http://third.cadre-test.invalid/' } })).toEqual(['second.cadre-test.invalid']);
  expect(asked()).toHaveLength(9);
});
