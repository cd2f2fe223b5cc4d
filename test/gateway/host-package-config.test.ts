// The host's package-manager configuration is asked once (across cadre processes) and asked again when it changes.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
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

/** The module as a new cadre process loads it: nothing of the last one's answers in memory. */
async function inNewProcess(): Promise<typeof import('../../src/gateway/registries.js')> {
  vi.resetModules();
  return import('../../src/gateway/registries.js');
}

it('keeps the answers for the next cadre process, which asks again once the npmrc or the program changes', async () => {
  // (a time in whole seconds: set again after the edit below, it is the same to the nanosecond)
  const npmrc = join(home, '.npmrc');
  utimesSync(npmrc, 1_700_000_000, 1_700_000_000);
  expect(await (await inNewProcess()).packageManagerRegistryHosts({ cwd: home, env })).toEqual(['first.cadre-test.invalid']);
  expect(asked()).toHaveLength(3);
  expect(await (await inNewProcess()).packageManagerRegistryHosts({ cwd: home, env })).toEqual(['first.cadre-test.invalid']);
  expect(asked()).toHaveLength(3);
  // An edit that keeps the file's size and time (within one clock tick) is a change all the same.
  const before = statSync(npmrc);
  writeFileSync(npmrc, 'registry=http://other.cadre-test.invalid/\n');
  utimesSync(npmrc, 1_700_000_000, 1_700_000_000);
  expect([statSync(npmrc).size, statSync(npmrc).mtimeMs, statSync(npmrc).ino]).toEqual([before.size, before.mtimeMs, before.ino]);
  expect(await (await inNewProcess()).packageManagerRegistryHosts({ cwd: home, env })).toEqual(['other.cadre-test.invalid']);
  expect(asked()).toHaveLength(6);
  // Another npm (an upgrade, another install on PATH) may answer otherwise; yarn, the same, is not asked again.
  writeFileSync(join(home, 'bin', 'npm'), `#!/bin/sh\necho "npm $*" >> "$HOME/asked.log"\n[ "$3" = registry ] && echo http://upgraded.cadre-test.invalid/\nexit 0\n`);
  expect(await (await inNewProcess()).packageManagerRegistryHosts({ cwd: home, env })).toEqual(['upgraded.cadre-test.invalid', 'other.cadre-test.invalid']);
  expect(asked()).toHaveLength(7);
  // A project's .npmrc in a folder above the one cadre runs in (npm reads the project root's).
  const nested = join(home, 'project', 'packages', 'app');
  mkdirSync(nested, { recursive: true });
  await (await inNewProcess()).packageManagerRegistryHosts({ cwd: nested, env });
  expect(asked()).toHaveLength(10);
  writeFileSync(join(home, 'project', '.npmrc'), 'registry=http://project.cadre-test.invalid/\n');
  await (await inNewProcess()).packageManagerRegistryHosts({ cwd: nested, env });
  expect(asked()).toHaveLength(13);
});
