// Dependency and file structure: import cycles, unused and missing dependencies, unused exports, deep relative imports.
import { builtinModules } from 'node:module';
import { allDependencies, packageNameOf } from '../../../project/detect.js';
import { importBases, resolveImport } from '../../../project/resolve.js';
import { isTestPath } from '../code-paths.js';
import type { Finding, RuleMeta } from '../types.js';
import type { ProjectView } from '../view.js';

const rule = (id: string, category: string, title: string, help: string): RuleMeta => ({ id, kind: 'quality', category, title, help });

export const structureRules = {
  cycle: rule('quality/import-cycle', 'dependencies', 'Import cycle', 'Break the cycle: move the shared code into a module both import, or invert one dependency.'),
  missing: rule('quality/missing-dependency', 'dependencies', 'Imported package not declared in package.json', 'Add the package to dependencies (or devDependencies for tooling and tests).'),
  unused: rule('quality/unused-dependency', 'dependencies', 'Declared dependency never imported', 'Remove it from package.json, or move it to devDependencies if only tooling uses it.'),
  unusedExport: rule('quality/unused-export', 'smells', 'Export nobody imports', 'Remove the export (or the code) if nothing outside uses it.'),
  deepImport: rule('quality/deep-relative-import', 'structure', 'Deep relative import', 'Reorganise the folders so that related modules sit together, or add a path alias.'),
};

const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
/** Packages used by tools and configuration rather than by imports. */
const toolingPackage = /^(?:@types\/|typescript$|eslint|@eslint\/|prettier|vite$|@vitejs\/|vitest|jest|ts-jest|babel|@babel\/|webpack|rollup|esbuild|tsx$|ts-node|nodemon|husky|lint-staged|prisma$|@playwright\/test|playwright$|cypress|mocha|chai|tailwindcss|postcss|autoprefixer|sass$|less$|concurrently|cross-env|rimraf|npm-run-all|typescript-eslint|@tailwindcss\/|@testing-library\/jest-dom|jsdom|happy-dom|supertest|c8|nyc|tsup|turbo|lerna|nx$|@changesets\/|semantic-release|ava$|tap$|knip|depcheck|react-dom$|@sveltejs\/|svelte-check|vue-tsc|@vue\/)/;

export function checkStructure(view: ProjectView): Finding[] {
  const findings: Finding[] = [];
  const paths = new Set(view.files.keys());
  const graph = new Map<string, string[]>();
  const importedPackages = new Map<string, { file: string; line: number; typeOnly: boolean }[]>();
  const importedNames = new Map<string, Set<string>>();
  // With baseUrl, `src/components/x` names a project folder, not a package called src.
  const base = view.aliases.baseUrl ? `${view.aliases.baseUrl}/` : '';
  const topLevel = new Set(view.paths.filter((path) => path.startsWith(base)).map((path) => path.slice(base.length).split('/')[0]));
  const isProjectPath = (from: string, source: string): boolean => importBases(from, source, view.aliases) !== null
    || (view.aliases.baseUrl !== null && topLevel.has(source.split('/')[0]));
  for (const [path, file] of view.files) {
    const edges: string[] = [];
    for (const fact of file.facts?.imports ?? []) {
      const target = resolveImport(path, fact.source, paths, view.aliases);
      if (target) {
        if (!fact.typeOnly) edges.push(target);
        const names = importedNames.get(target) ?? new Set<string>();
        for (const name of fact.kind === 'import' || fact.kind === 'reexport' ? fact.names : ['*']) names.add(name);
        importedNames.set(target, names);
      }
      if (fact.source.startsWith('../../../../')) {
        findings.push({ file: path, line: fact.line, column: 1, ruleId: structureRules.deepImport.id, category: 'structure', severity: 'Low', message: `${fact.source} climbs ${fact.source.split('../').length - 1} folders.`, fix: structureRules.deepImport.help });
      }
      const name = target || isProjectPath(path, fact.source) ? null : packageNameOf(fact.source);
      if (name) importedPackages.set(name, [...(importedPackages.get(name) ?? []), { file: path, line: fact.line, typeOnly: fact.typeOnly }]);
    }
    graph.set(path, edges);
  }
  findings.push(...cycles(graph));
  if (view.packageJson) findings.push(...dependencyFindings(view, importedPackages));
  // With a single file in view, nothing could import its exports.
  if (view.files.size > 1) findings.push(...unusedExports(view, importedNames));
  return findings;
}

/** Packages used without an import: loaded by another package (database drivers, MUI's Emotion), autolinked (React Native), or imported from CSS. */
function usedWithoutImport(name: string, declared: Record<string, string>): boolean {
  const has = (pattern: RegExp): boolean => Object.keys(declared).some((other) => pattern.test(other));
  if (/^(?:pg|pg-hstore|mysql2?|sqlite3|better-sqlite3|tedious|oracledb|mssql|mongodb)$/.test(name) && has(/^(?:typeorm|knex|sequelize|@mikro-orm\/|objection|bookshelf|mongoose|@nestjs\/typeorm|drizzle-orm|kysely)/)) return true;
  if (/^(?:expo-|react-native-|@react-native)/.test(name) && has(/^(?:expo|react-native)$/)) return true;
  if (/^@emotion\//.test(name) && has(/^@mui\//)) return true;
  if (/^@fontsource|(?:^|-)css$|^tailwindcss-animate$/.test(name)) return true;
  if (name === 'sharp' && has(/^next$/)) return true;
  if (name === 'nodemailer' && has(/^(?:next-auth|@auth\/)/)) return true;
  // A wrapper package names the library it drives: react-apexcharts → apexcharts.
  return has(new RegExp(`^(?:react|vue|ng|svelte)-${name.replace(/[^\w-]/g, '')}$`));
}

/** Modules bundlers and frameworks provide without a package (UnoCSS's uno.css, unplugin-icons, Nuxt and SvelteKit aliases). */
const virtualModule = /^(?:virtual:|uno\.css$|~icons\/|#(?:imports|app|build|components)|\$(?:app|env|lib|service-worker)\b|astro:|bun:|~|@\/)/;

/** The folder of the package.json nearest to a file ('' for the root). */
function manifestFolder(path: string, manifests: ReadonlyMap<string, unknown>): string {
  for (let folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''; ; folder = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '') {
    if (manifests.has(folder) || folder === '') return folder;
  }
}

/** Each import against the package.json nearest to its file (and the root one, whose packages Node also finds); each manifest's unused dependencies. */
function dependencyFindings(view: ProjectView, imported: Map<string, { file: string; line: number; typeOnly: boolean }[]>): Finding[] {
  const findings: Finding[] = [];
  const rootDeclared = allDependencies(view.packageJson);
  const workspaceNames = new Set([...view.manifests.values()].map((manifest) => manifest.name).filter((name): name is string => typeof name === 'string'));
  const usedBy = new Map<string, Set<string>>();
  for (const [name, uses] of imported) {
    for (const where of uses) {
      const folder = manifestFolder(where.file, view.manifests);
      usedBy.set(folder, (usedBy.get(folder) ?? new Set()).add(name));
    }
    if (builtins.has(name) || workspaceNames.has(name) || name.startsWith('node:') || virtualModule.test(name)) continue;
    // Next.js resolves server-only and client-only itself.
    if (/^(?:server-only|client-only)$/.test(name) && [...view.manifests.values()].some((manifest) => 'next' in allDependencies(manifest))) continue;
    const missing = uses.find((where) => !where.typeOnly && !(name in allDependencies(view.manifests.get(manifestFolder(where.file, view.manifests)) ?? null)) && !(name in rootDeclared)
      && !(isTestPath(where.file) && /^(?:vitest|@jest|jest)/.test(name)));
    if (!missing) continue;
    const manifest = manifestFolder(missing.file, view.manifests);
    findings.push({ file: missing.file, line: missing.line, column: 1, ruleId: structureRules.missing.id, category: 'dependencies', severity: 'High', message: `${name} is imported but not declared in ${manifest ? `${manifest}/` : ''}package.json; installs from a clean checkout will fail.`, fix: structureRules.missing.help });
  }
  for (const [folder, manifest] of view.manifests) {
    const scripts = Object.values(manifest.scripts ?? {}).join(' ');
    const used = folder === '' ? new Set(imported.keys()) : usedBy.get(folder) ?? new Set<string>();
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (used.has(name) || toolingPackage.test(name) || scripts.includes(name)) continue;
      // TypeScript's emitted code imports tslib when importHelpers is on.
      if (name === 'tslib' && view.aliases.importHelpers) continue;
      if (name.startsWith('@types/') || used.has(name.replace(/^@types\//, '')) || usedWithoutImport(name, { ...manifest.dependencies, ...manifest.devDependencies })) continue;
      findings.push({ file: folder ? `${folder}/package.json` : 'package.json', line: 1, column: 1, ruleId: structureRules.unused.id, category: 'dependencies', severity: 'Low', message: `${name} is a dependency but no file imports it.`, fix: structureRules.unused.help });
    }
  }
  return findings;
}

function unusedExports(view: ProjectView, importedNames: Map<string, Set<string>>): Finding[] {
  const entryPoints = new Set([view.packageJson?.main, ...Object.values((view.packageJson as { bin?: Record<string, string> } | null)?.bin ?? {})].filter((path): path is string => typeof path === 'string').map((path) => path.replace(/^\.\//, '')));
  const findings: Finding[] = [];
  for (const [path, file] of view.files) {
    if (entryPoints.has(path) || isTestPath(path) || /(?:^|\/)(?:index|main|server|app|cli)\.[cm]?[jt]sx?$|(?:^|\/)(?:pages|app|routes)\/|\.config\.[cm]?[jt]s$|\.d\.ts$|\.(?:vue|svelte)$/.test(path)) continue;
    const names = importedNames.get(path);
    if (names?.has('*')) continue;
    for (const symbol of file.facts?.symbols ?? []) {
      if (!symbol.exported || names?.has(symbol.name) || (symbol.kind === 'type' || symbol.kind === 'interface')) continue;
      // `export default prisma`: exported by the name default only, and imported as such.
      if (names?.has('default') && !file.facts?.exports.includes(symbol.name)) continue;
      findings.push({ file: path, line: symbol.line, column: 1, ruleId: structureRules.unusedExport.id, category: 'smells', severity: 'Low', message: `${symbol.name} is exported but no file in the project imports it.`, fix: structureRules.unusedExport.help });
    }
  }
  return findings;
}

/** Strongly connected components of the import graph (Tarjan), each reported once. */
function cycles(graph: Map<string, string[]>): Finding[] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const findings: Finding[] = [];
  const connect = (node: string): void => {
    indices.set(node, index);
    lowLinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        lowLinks.set(node, Math.min(lowLinks.get(node) ?? 0, lowLinks.get(next) ?? 0));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node) ?? 0, indices.get(next) ?? 0));
      }
    }
    if (lowLinks.get(node) === indices.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) {
        const members = component.sort();
        findings.push({ file: members[0] as string, line: 1, column: 1, ruleId: structureRules.cycle.id, category: 'dependencies', severity: 'Medium', message: `Import cycle between ${members.join(' → ')}.`, fix: structureRules.cycle.help });
      }
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) connect(node);
  return findings;
}
