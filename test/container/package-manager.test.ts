// Which package manager /vm-install-deps uses, decided as a developer would on real repositories: package.json's packageManager,
// then the install the project's own CI runs, then the lockfiles; a conflict is said with its reason. The project context agrees.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planInstall } from '../../src/container/package-manager.js';
import { analyzeProject } from '../../src/project/context.js';
import { unpackVendored } from '../support/corpus.js';

async function withCopy<T>(name: string, use: (root: string) => Promise<T>): Promise<T> {
  const copy = unpackVendored(name);
  try {
    return await use(copy.root);
  } finally {
    copy.dispose();
  }
}

describe('planInstall', () => {
  it("takes npm for dicom-deidentifier-ts, whose CI runs npm install, though a yarn.lock is beside its package-lock.json, and says why", async () => {
    const plan = await withCopy('dicom-deidentifier-ts', (root) => planInstall(root));
    expect(plan).toMatchObject({ manager: 'npm', lockfile: 'package-lock.json', command: ['npm', 'ci', '--no-audit', '--no-fund'] });
    expect(plan.reason).toBe("npm: the project's CI installs with it (.github/workflows/npm-publish.yaml: npm install); yarn.lock is not used");
  });

  it("puts package.json's packageManager before the CI, and the CI before the lockfiles' order, naming what is not used", async () => {
    await withCopy('dicom-deidentifier-ts', async (root) => {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, packageManager: 'yarn@1.22.22' }));
      expect(await planInstall(root)).toMatchObject({
        manager: 'yarn', pinned: '1.22.22', lockfile: 'yarn.lock',
        reason: `yarn: package.json's "packageManager" names it; the CI runs npm install (.github/workflows/npm-publish.yaml); package-lock.json is not used`,
      });
      writeFileSync(join(root, 'package.json'), JSON.stringify(manifest));
      rmSync(join(root, '.github'), { recursive: true });
      expect(await planInstall(root)).toMatchObject({ manager: 'yarn', lockfile: 'yarn.lock', reason: 'yarn: its lockfile yarn.lock comes first (pnpm, yarn, npm); package-lock.json is not used' });
    });
  });

  it("tells the agents the same manager: dicom-deidentifier-ts's project context says npm", async () => {
    await withCopy('dicom-deidentifier-ts', async (cwd) => expect((await analyzeProject({ cwd })).context.packageManager).toBe('npm'));
  });

  it("reads date-utils' CI (npm install -g corepack, then yarn --immutable) as yarn, agreeing with its pin: nothing to explain", async () => {
    const plan = await withCopy('date-utils', (root) => planInstall(root));
    expect(plan).toMatchObject({ manager: 'yarn', pinned: '4.17.1', lockfile: 'yarn.lock', command: ['yarn', 'install', '--immutable'] });
    expect(plan.reason).toBeUndefined();
  });

  it("keeps tiny-invariant's yarn (its lockfile and its CI's yarn install agree) and connect-pg-simple's npm (no lockfile, no install in its own workflows)", async () => {
    const yarn = await withCopy('tiny-invariant', (root) => planInstall(root));
    expect(yarn).toMatchObject({ manager: 'yarn', lockfile: 'yarn.lock' });
    expect(yarn).not.toHaveProperty('reason');
    const npm = await withCopy('connect-pg-simple', (root) => planInstall(root));
    expect(npm).toMatchObject({ manager: 'npm', lockfile: '(none)', command: ['npm', 'install', '--no-audit', '--no-fund'] });
    expect(npm).not.toHaveProperty('reason');
  });
});
