// The module layout's rules (.dependency-cruiser.cjs): no import cycles, terminal code only used by the terminal and the
// composition root, dockerode only behind src/container. Checked on the real source with dependency-cruiser.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

it('keeps the layout: no cycles, src/cli only for the terminal, dockerode only in src/container', () => {
  const run = spawnSync(process.execPath, [resolve(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src', 'machines'], {
    cwd: root, encoding: 'utf8',
  });
  expect(`${run.stdout}${run.stderr}`.trim().split('\n').filter((line) => /error|warn/.test(line)), run.stdout).toEqual([]);
  expect(run.status).toBe(0);
}, 60_000);
