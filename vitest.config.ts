// Test runner configuration: unit, model-based and integration tests live under test/; the corpus checks (real projects' own
// type check, lint, format and tests after generation) are a project of their own that runs after the others, one file at a time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/corpus-checks/**'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // Tests never reach the internet: `cadre analyze security` on a corpus project with a lockfile would ask npm's
          // registry for advisories as `npm audit` does. Tests of that pass their own npm configuration (a local registry).
          env: { npm_config_audit: 'false' },
        },
      },
      {
        test: {
          name: 'corpus-checks',
          include: ['test/corpus-checks/**/*.test.ts'],
          testTimeout: 1_800_000,
          hookTimeout: 1_800_000,
          pool: 'forks',
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          // As above: no registry advisories asked from a test.
          env: { npm_config_audit: 'false' },
        },
      },
    ],
  },
});
