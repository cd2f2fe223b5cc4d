// What /vm-setup-dev says when installing a tool did not give a working one: never "failed (exit 0)" after npm succeeded.
import { expect, it } from 'vitest';
import { devTools, failedInstallReason, toolsPath } from '../../src/container/dev-tools.js';

const pnpm = devTools.find((tool) => tool.name === 'pnpm')!;
const succeeded = { exitCode: 0, stdout: 'added 1 package in 2s\n', stderr: '' };

it('names the version check that failed after npm installed the tool, not npm', () => {
  const reason = failedInstallReason(pnpm, succeeded, { found: true, exitCode: 1, output: 'ERROR: This version of pnpm requires at least Node.js v18.12' });
  expect(reason).not.toMatch(/failed \(exit 0\)/);
  expect(reason).toBe('npm installed pnpm@10 into /workspace/.cadre-tools, but pnpm --version then exited with 1: ERROR: This version of pnpm requires at least Node.js v18.12');
});

it('says the installed program is not on PATH when the version check cannot find it', () => {
  const reason = failedInstallReason(pnpm, succeeded, { found: false, exitCode: 127, output: 'sh: pnpm: not found' });
  expect(reason).toBe(`npm installed pnpm@10 into /workspace/.cadre-tools, but pnpm --version then found no pnpm on PATH (${toolsPath})`);
});

it("reports npm's own failure with its exit code and output", () => {
  const reason = failedInstallReason(pnpm, { exitCode: 1, stdout: '', stderr: 'npm error code E403\n' }, undefined);
  expect(reason).toBe('npm install pnpm@10 failed (exit 1): npm error code E403');
});
