// Detects the package manager, frameworks, theming approach, test runner and database layer of a project.

export type PackageJson = {
  name?: string;
  version?: string;
  description?: string;
  type?: string;
  main?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  workspaces?: unknown;
};

export type Stack = {
  packageManager: 'npm' | 'yarn' | 'pnpm' | 'bun' | null;
  frameworks: string[];
  theming: string[];
  testRunners: string[];
  orm: string[];
};

/** What detection looks at: the manifest, the file paths, and every import specifier in the code. */
export type DetectionInput = {
  packageJson: PackageJson | null;
  paths: readonly string[];
  importSources: ReadonlySet<string>;
  /** True when some stylesheet declares CSS custom properties (`--name:`). */
  usesCssVariables: boolean;
  /** The package manager the project's own CI installs with (its workflows' `npm ci`, `yarn`, `pnpm install`), when it runs one. */
  ciManager?: 'npm' | 'pnpm' | 'yarn';
};

type Rule = { name: string; packages?: string[]; files?: RegExp[] };

const frameworkRules: Rule[] = [
  { name: 'Next.js', packages: ['next'], files: [/^next\.config\.[cm]?[jt]s$/] },
  { name: 'React', packages: ['react', 'react-dom'] },
  { name: 'Nuxt', packages: ['nuxt'], files: [/^nuxt\.config\.[jt]s$/] },
  { name: 'Vue', packages: ['vue'], files: [/\.vue$/] },
  { name: 'SvelteKit', packages: ['@sveltejs/kit'] },
  { name: 'Svelte', packages: ['svelte'], files: [/\.svelte$/] },
  { name: 'Angular', packages: ['@angular/core'], files: [/^angular\.json$/] },
  { name: 'Solid', packages: ['solid-js'] },
  { name: 'Preact', packages: ['preact'] },
  { name: 'Remix', packages: ['@remix-run/react', '@remix-run/node'] },
  { name: 'Astro', packages: ['astro'] },
  { name: 'NestJS', packages: ['@nestjs/core'] },
  { name: 'Express', packages: ['express'] },
  { name: 'Fastify', packages: ['fastify'] },
  { name: 'Koa', packages: ['koa'] },
  { name: 'Hapi', packages: ['@hapi/hapi', 'hapi'] },
  { name: 'Hono', packages: ['hono'] },
  { name: 'Electron', packages: ['electron'] },
];

const themingRules: Rule[] = [
  { name: 'Tailwind CSS', packages: ['tailwindcss', '@tailwindcss/vite', '@tailwindcss/postcss'], files: [/^tailwind\.config\.[cm]?[jt]s$/] },
  { name: 'UnoCSS', packages: ['unocss', '@unocss/vite', '@unocss/nuxt'], files: [/^uno\.config\.[cm]?[jt]s$/] },
  { name: 'styled-components', packages: ['styled-components'] },
  { name: 'Emotion', packages: ['@emotion/react', '@emotion/styled', '@emotion/css'] },
  { name: 'MUI theme', packages: ['@mui/material', '@material-ui/core'] },
  { name: 'Chakra UI theme', packages: ['@chakra-ui/react'] },
  { name: 'vanilla-extract', packages: ['@vanilla-extract/css'] },
  { name: 'Sass', packages: ['sass', 'node-sass', 'sass-embedded'], files: [/\.s[ac]ss$/] },
  { name: 'Less', packages: ['less'], files: [/\.less$/] },
  { name: 'CSS modules', files: [/\.module\.(?:css|s[ac]ss|less)$/] },
];

const testRules: Rule[] = [
  { name: 'vitest', packages: ['vitest'], files: [/^vitest\.config\.[cm]?[jt]s$/] },
  { name: 'jest', packages: ['jest', 'ts-jest', 'babel-jest'], files: [/^jest\.config\.[cm]?[jt]s$/] },
  { name: 'mocha', packages: ['mocha'], files: [/^\.mocharc\./] },
  { name: 'playwright', packages: ['@playwright/test', 'playwright'], files: [/^playwright\.config\.[jt]s$/] },
  { name: 'cypress', packages: ['cypress'], files: [/^cypress\.config\.[jt]s$/] },
  { name: 'ava', packages: ['ava'] },
  { name: 'tap', packages: ['tap'] },
  { name: 'node:test', packages: ['node:test'] },
];

const ormRules: Rule[] = [
  { name: 'Prisma', packages: ['@prisma/client', 'prisma'], files: [/(?:^|\/)schema\.prisma$/] },
  { name: 'Drizzle', packages: ['drizzle-orm'], files: [/^drizzle\.config\.[jt]s$/] },
  { name: 'TypeORM', packages: ['typeorm'] },
  { name: 'Sequelize', packages: ['sequelize', 'sequelize-typescript'] },
  { name: 'Mongoose', packages: ['mongoose'] },
  { name: 'Knex', packages: ['knex'], files: [/^knexfile\.[jt]s$/] },
  { name: 'MikroORM', packages: ['@mikro-orm/core'] },
  { name: 'Objection', packages: ['objection'] },
  { name: 'Kysely', packages: ['kysely'] },
  { name: 'plain SQL', packages: ['pg', 'mysql', 'mysql2', 'sqlite3', 'better-sqlite3', 'postgres', 'mssql', 'oracledb'] },
  { name: 'MongoDB driver', packages: ['mongodb'] },
];

export function allDependencies(manifest: PackageJson | null): Record<string, string> {
  return { ...manifest?.peerDependencies, ...manifest?.optionalDependencies, ...manifest?.devDependencies, ...manifest?.dependencies };
}

export function detectStack(input: DetectionInput): Stack {
  const dependencies = new Set(Object.keys(allDependencies(input.packageJson)));
  const imported = new Set([...input.importSources].map(packageNameOf).filter((name): name is string => name !== null));
  const hasPackage = (name: string): boolean => dependencies.has(name) || imported.has(name);
  const matches = (rules: Rule[]): string[] =>
    rules.filter((rule) => (rule.packages ?? []).some(hasPackage)
      || (rule.files ?? []).some((pattern) => input.paths.some((path) => pattern.test(path) || pattern.test(path.slice(path.lastIndexOf('/') + 1)))))
      .map((rule) => rule.name);
  const theming = matches(themingRules);
  if (input.usesCssVariables) theming.push('CSS variables');
  const sqlFiles = input.paths.some((path) => path.endsWith('.sql'));
  const orm = matches(ormRules);
  if (sqlFiles && !orm.includes('plain SQL')) orm.push('plain SQL');
  const testRunners = matches(testRules);
  if (testRunners.length === 0 && Object.values(input.packageJson?.scripts ?? {}).some((script) => /\bnode --test\b/.test(script))) testRunners.push('node:test');
  return {
    packageManager: detectPackageManager(input.paths, input.packageJson, input.ciManager),
    frameworks: matches(frameworkRules),
    theming,
    testRunners,
    orm,
  };
}

/** As a developer decides (and /vm-install-deps): package.json's `packageManager`, then what the CI installs with, then the lockfiles. */
function detectPackageManager(paths: readonly string[], manifest: PackageJson | null, ciManager: DetectionInput['ciManager']): Stack['packageManager'] {
  const declared = (manifest as { packageManager?: unknown } | null)?.packageManager;
  const name = typeof declared === 'string' ? declared.split('@')[0] : undefined;
  if (name === 'npm' || name === 'yarn' || name === 'pnpm' || name === 'bun') return name;
  if (ciManager) return ciManager;
  const top = new Set(paths.filter((path) => !path.includes('/')));
  if (top.has('pnpm-lock.yaml')) return 'pnpm';
  if (top.has('yarn.lock')) return 'yarn';
  if (top.has('bun.lockb') || top.has('bun.lock')) return 'bun';
  if (top.has('package-lock.json') || top.has('npm-shrinkwrap.json')) return 'npm';
  return manifest ? 'npm' : null;
}

/** `lodash/get` → `lodash`, `@scope/pkg/x` → `@scope/pkg`; relative and absolute paths → null. */
export function packageNameOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return null;
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.length >= 2 ? `${parts[0]}/${parts[1]}` : null;
  return parts[0] ?? null;
}
