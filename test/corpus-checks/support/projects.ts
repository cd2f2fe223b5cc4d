// Per corpus project: how its dependencies install (MANIFEST's passing way, never with install scripts), its offline workarounds, and its own checks.
import type { GenerationProject } from '../../support/corpus.js';
import type { InstallRecipe } from './dependencies.js';

/** A command of the project's own toolchain: a binary from node_modules/.bin of `cwd` (the project root unless given), or npx for a pinned package manager. */
export type Command = { bin: string; args: string[]; cwd?: string; env?: Record<string, string> };

/**
 * A check the project's MANIFEST records. `pass`: it passed as shipped and must pass after generation. `same-failures`: it failed as
 * shipped (upstream problems, missing services); the files it reports afterwards must be exactly those it reported before.
 */
export type Check = Command & { step: string; expect: 'pass' } | Command & { step: string; expect: 'same-failures'; failingFiles: (output: string) => string[] };

export type ProjectChecks = {
  install: InstallRecipe;
  /** Offline workarounds MANIFEST documents, run after the plan is applied and before the checks. */
  prepare: (Command & { step: string })[];
  checks: Check[];
};

const prismaEngines = (placeholder: string): Record<string, string> => ({
  PRISMA_QUERY_ENGINE_LIBRARY: placeholder, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_MIGRATION_ENGINE_BINARY: placeholder,
  PRISMA_INTROSPECTION_ENGINE_BINARY: placeholder, PRISMA_FMT_BINARY: placeholder, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1',
});

/** Where the placeholder engine file is written (any existing file will do, MANIFEST says). */
export const enginePlaceholder = 'node_modules/.cadre-engine-placeholder';

/** ESLint's default ("stylish") output names each file with a problem on a line of its own, as an absolute path. */
const eslintFiles = (root: string) => (output: string): string[] =>
  [...new Set(output.split('\n').filter((line) => line.startsWith(root)).map((line) => line.slice(root.length + 1).trim()))].sort();
/** `prettier --check` lists each unformatted file after `[warn]`. */
const prettierFiles = (output: string): string[] =>
  [...new Set(output.split('\n').map((line) => /^\[warn\] (\S+\.\w+)$/.exec(line.trim())?.[1]).filter((file): file is string => Boolean(file)))].sort();
/** Jest names each failing suite after `FAIL`. */
const jestFailures = (output: string): string[] =>
  [...new Set(output.split('\n').map((line) => /^\s*FAIL\s+(\S+)/.exec(line)?.[1]).filter((file): file is string => Boolean(file)))].sort();

const npx = (pinned: string, args: string[], env?: Record<string, string>): InstallRecipe => ({ program: 'npx', args: ['-y', pinned, ...args], ...(env ? { env } : {}) });

/** The checks of every project, keyed by name; `root` is the copy's absolute path (ESLint prints absolute paths). */
export function projectChecks(name: GenerationProject, root: string): ProjectChecks {
  const engines = prismaEngines(`${root}/${enginePlaceholder}`);
  switch (name) {
    case 'prisma-rest-express':
      return {
        install: { program: 'npm', args: ['install', '--ignore-scripts', '--no-audit', '--no-fund'] },
        prepare: [{ step: 'prisma generate (offline workaround)', bin: 'prisma', args: ['generate'], env: engines }],
        checks: [{ step: 'type check after offline generate', bin: 'tsc', args: ['--noEmit'], expect: 'pass' }],
      };
    case 'node-express-boilerplate':
      return {
        install: npx('yarn@1.22.22', ['install', '--frozen-lockfile', '--ignore-scripts', '--non-interactive']),
        prepare: [],
        checks: [
          { step: 'lint', bin: 'eslint', args: ['.'], expect: 'same-failures', failingFiles: eslintFiles(root) },
          { step: 'format check', bin: 'prettier', args: ['--check', '**/*.js'], expect: 'same-failures', failingFiles: prettierFiles },
          { step: 'tests', bin: 'jest', args: ['-i', '--ci'], expect: 'same-failures', failingFiles: jestFailures },
        ],
      };
    case 'fastify-demo':
      return {
        install: { program: 'npm', args: ['install', '--ignore-scripts', '--no-audit', '--no-fund'] },
        prepare: [],
        checks: [
          { step: 'type check', bin: 'tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['--ignore-pattern=dist'], expect: 'pass' },
        ],
      };
    case 'nestjs-boilerplate':
      return {
        install: { program: 'npm', args: ['ci', '--ignore-scripts', '--no-audit', '--no-fund'] },
        prepare: [],
        checks: [
          { step: 'type check', bin: 'tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['{src,apps,libs,test}/**/*.ts'], expect: 'pass' },
        ],
      };
    case 'koa-typescript-rest':
      return {
        install: { program: 'npm', args: ['ci', '--ignore-scripts', '--no-audit', '--no-fund'] },
        prepare: [],
        checks: [
          { step: 'type check', bin: 'tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['**/*.{js,ts}', '--quiet'], expect: 'pass' },
          { step: 'tests', bin: 'jest', args: ['--ci'], expect: 'pass' },
        ],
      };
    case 'shadcn-admin':
      return {
        install: npx('pnpm@10', ['install', '--frozen-lockfile', '--ignore-scripts']),
        prepare: [],
        checks: [
          { step: 'type check', bin: 'tsc', args: ['-b'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['.'], expect: 'pass' },
          { step: 'format check', bin: 'prettier', args: ['--check', '.'], expect: 'pass' },
        ],
      };
    case 'material-kit-react':
      return {
        install: npx('yarn@1.22.22', ['install', '--frozen-lockfile', '--ignore-scripts', '--non-interactive']),
        prepare: [],
        checks: [
          { step: 'type check', bin: 'tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['src/**/*.{js,jsx,ts,tsx}'], expect: 'pass' },
          { step: 'format check', bin: 'prettier', args: ['--check', 'src/**/*.{js,jsx,ts,tsx}'], expect: 'pass' },
        ],
      };
    case 'taxonomy':
      return {
        install: npx('pnpm@8', ['install', '--frozen-lockfile', '--ignore-scripts']),
        prepare: [
          { step: 'prisma generate (offline workaround)', bin: 'prisma', args: ['generate'], env: engines },
          { step: 'contentlayer build', bin: 'contentlayer', args: ['build'] },
        ],
        checks: [
          { step: 'type check after generation', bin: 'tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint without Next\'s config loading', bin: 'eslint', args: ['.', '--ext', '.js,.jsx,.ts,.tsx'], expect: 'pass' },
        ],
      };
    case 'vitesse':
      return {
        install: npx('pnpm@10.7.0', ['install', '--frozen-lockfile', '--ignore-scripts'], { CYPRESS_INSTALL_BINARY: '0' }),
        prepare: [],
        checks: [
          { step: 'type check', bin: 'vue-tsc', args: ['--noEmit'], expect: 'pass' },
          { step: 'lint', bin: 'eslint', args: ['.'], expect: 'pass' },
          { step: 'unit tests', bin: 'vitest', args: ['run'], expect: 'pass' },
        ],
      };
    case 'create-t3-turbo':
      return {
        install: npx('pnpm@10.19.0', ['install', '--frozen-lockfile', '--ignore-scripts']),
        prepare: [],
        checks: [
          { step: 'type check (all 14 workspace tasks)', bin: 'turbo', args: ['run', 'typecheck'], expect: 'pass' },
          { step: 'format check', bin: 'turbo', args: ['run', 'format', '--continue', '--', '--cache', '--cache-location', '.cache/.prettiercache'], expect: 'pass' },
        ],
      };
  }
}
