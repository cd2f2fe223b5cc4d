// npm ci must work on the committed lockfile: every optional dependency a locked package declares has a lock entry
// (scripts/lock-platform-bindings.mjs adds the platform bindings the registry used here does not serve).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

type LockEntry = { version?: string; optionalDependencies?: Record<string, string>; os?: string[]; cpu?: string[] };

it('every optional dependency in package-lock.json has an entry (else npm ci refuses the lock)', () => {
  const packages = (JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) {
      if (!packages[`${path ? `${path}/` : ''}node_modules/${dependency}`] && !packages[`node_modules/${dependency}`]) missing.push(`${dependency} (of ${path || 'cadre'})`);
    }
  }
  expect(missing, 'run `node scripts/lock-platform-bindings.mjs` after npm install').toEqual([]);
});
