// Where and how a project keeps its components: the folder (a UI package of a monorepo, `components/`, or one folder per component), file naming, exports, its index and package exports, and style details learned from its files.
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import { allDependencies } from '../../project/detect.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, parseExisting } from './ast-edit.js';
import { type Conventions, busiestFolder, importSpecifier, isConventionSource } from './conventions.js';
import { type ImportLayout, learnImportLayout } from './imports.js';
import { fileBaseName, kebabCase } from './names.js';
import { printSnippet } from './printer.js';
import { children } from '../../project/ast.js';

/** `indexFile`: the component is its own folder's `index.vue` (`SearchBox/index.vue`), imported by the folder's path, with no index to update. */
export type Placement = { path: string; folder: string; defaultExport: boolean; perFolder: boolean; indexFile: boolean; tsconfig: string };

const componentFile = (framework: 'react' | 'vue') => (path: string): boolean => (framework === 'vue' ? /\.vue$/.test(path) && !/(?:^|\/)(?:pages|views|layouts)\//.test(path) : /\.[jt]sx$/.test(path) && !/(?:^|\/)(?:App|main|index)\.[jt]sx$/.test(path));

/** The folder for a new component, its file, its export style, and the tsconfig that covers it. */
export function componentPlacement(context: ProjectContext, framework: 'react' | 'vue', name: string, typescript: boolean): Placement {
  const isComponent = componentFile(framework);
  const sources = Object.keys(context.files).filter((path) => isConventionSource(context, path) && isComponent(path) && (framework === 'vue' || (context.files[path]?.facts?.symbols.some((symbol) => symbol.kind === 'component' && symbol.exported) ?? false)));
  // A monorepo's UI package (packages/ui) is where shared components go; otherwise a `components` folder that is not a primitives folder.
  const uiPackage = sources.map((path) => /^((?:packages|libs)\/[\w.-]*ui[\w.-]*\/src)\/[^/]+$/.exec(path)?.[1]).find(Boolean);
  const roots = [...new Set(sources.map((path) => /^(.*?(?:^|\/)components)\//.exec(path)?.[1]).filter((root): root is string => Boolean(root) && !/(?:^|\/)ui\/components$/.test(root as string)))]
    .sort((left, right) => Number(!left.startsWith('src/')) - Number(!right.startsWith('src/')) || left.length - right.length);
  const folder = uiPackage ?? roots[0] ?? busiestFolder(context, (path) => isComponent(path), 'src/components');
  const direct = sources.filter((path) => posix.dirname(path) === folder);
  const nested = sources.filter((path) => path.startsWith(`${folder}/`) && posix.dirname(path) !== folder && !/\/ui\//.test(path.slice(folder.length)));
  // Vue projects that keep each component in a folder of its own as its index.vue (Breadcrumb/index.vue) more often than as a file of the folder.
  const indexFiles = framework === 'vue' ? nested.filter((path) => posix.basename(path) === 'index.vue').length : 0;
  const indexFile = indexFiles > 0 && indexFiles > direct.length;
  const perFolder = indexFile || (direct.length === 0 && nested.some((path) => context.files[posix.join(posix.dirname(path), 'index.ts')] !== undefined));
  const bases = indexFile ? nested.filter((path) => posix.basename(path) === 'index.vue').map((path) => posix.basename(posix.dirname(path))) : (perFolder ? nested : direct).map((path) => posix.basename(path).split('.')[0] ?? '');
  const pascal = bases.length === 0 ? framework === 'vue' : bases.filter((base) => /^[A-Z]/.test(base)).length * 2 >= bases.length;
  const base = pascal ? name : fileBaseName(name, bases.some((candidate) => candidate.includes('-')) ? 'kebab-case' : context.style.fileNaming);
  const extension = framework === 'vue' ? 'vue' : typescript ? 'tsx' : 'jsx';
  const path = indexFile ? posix.join(folder, base, 'index.vue') : perFolder ? posix.join(folder, kebabCase(name), `${base}.${extension}`) : posix.join(folder, `${base}.${extension}`);
  const siblings = Object.entries(context.files).filter(([candidate]) => (perFolder ? nested : direct).includes(candidate));
  const defaults = siblings.filter(([, entry]) => entry.facts?.exports.includes('default')).length;
  const packageRoot = /^((?:packages|apps|libs)\/[^/]+)\//.exec(folder)?.[1];
  const tsconfig = packageRoot && context.files[`${packageRoot}/package.json`] ? `${packageRoot}/tsconfig.json` : 'tsconfig.json';
  return { path, folder, defaultExport: framework === 'vue' || (siblings.length > 0 && defaults * 2 > siblings.length), perFolder, indexFile, tsconfig };
}

/**
 * What the project's own single-file components show: whether their `<template>` block comes before `<script>` (eslint-plugin-vue's
 * vue/block-order may require either), and whether they are built of a component library's elements (Element Plus `el-*`, when it is a dependency).
 */
export async function vueHouseStyle(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<{ templateFirst: boolean; library: 'element-plus' | null }> {
  const files = Object.keys(context.files).filter((path) => path.endsWith('.vue') && isConventionSource(context, path)).sort().slice(0, 40);
  let templateFirst = 0;
  let scriptFirst = 0;
  let elements = 0;
  for (const text of await Promise.all(files.map(read))) {
    if (!text) continue;
    const template = text.search(/^<template\b/m);
    const script = text.search(/^<script\b/m);
    if (template >= 0 && script >= 0) {
      if (template < script) templateFirst += 1;
      else scriptFirst += 1;
    }
    if (/<el-[a-z]/.test(text)) elements += 1;
  }
  return { templateFirst: templateFirst > scriptFirst, library: 'element-plus' in allDependencies(context.packageJson) && elements > 0 ? 'element-plus' : null };
}

/** How the project's props types are declared (`type XProps = {…}` or `interface XProps`) and whether they are exported. */
export function propsStyle(context: ProjectContext): { keyword: 'interface' | 'type'; exported: boolean } {
  let types = 0;
  let interfaces = 0;
  let exported = 0;
  for (const [name, places] of Object.entries(context.symbols)) {
    if (!/Props$/.test(name)) continue;
    for (const place of places.filter((candidate) => isConventionSource(context, candidate.file))) {
      if (place.kind === 'type') types += 1;
      if (place.kind === 'interface') interfaces += 1;
      if (place.exported) exported += 1;
    }
  }
  return { keyword: types > interfaces ? 'type' : 'interface', exported: exported * 2 > types + interfaces };
}

/** CSS custom properties the project's stylesheets declare (shadcn's --card, --muted-foreground…). */
export async function cssVariableNames(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<string[]> {
  const names = new Set<string>();
  for (const [path, entry] of Object.entries(context.files)) {
    if (!entry.cssVariables) continue;
    for (const match = /(--[\w-]+)\s*:/g, text = (await read(path)) ?? ''; ;) {
      const found = match.exec(text);
      if (!found) break;
      names.add(found[1] as string);
    }
  }
  return [...names];
}

/** The UnoCSS or Tailwind shortcuts the project defines (`btn`, `icon-btn`), from its uno.config. */
export async function uiShortcuts(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<string[]> {
  const config = Object.keys(context.files).find((path) => /^uno\.config\.[cm]?[jt]s$/.test(path));
  const text = config ? (await read(config)) ?? '' : '';
  return [...text.matchAll(/\[\s*['"]([\w-]+)['"]\s*,\s*['"]/g)].map((match) => match[1] as string);
}

/** The import layout of the runtime source files near the component (blank lines between groups, order inside a group). */
export async function learnedLayout(context: ProjectContext, read: (path: string) => Promise<string | null>, folder: string): Promise<ImportLayout> {
  const root = folder.split('/').slice(0, 2).join('/');
  const near = Object.keys(context.files).filter((path) => /\.[cm]?[jt]sx?$/.test(path) && isConventionSource(context, path) && path.startsWith(`${root}/`)).slice(0, 30);
  const texts = await Promise.all(near.map(read));
  return learnImportLayout(texts.filter((text): text is string => text !== null));
}

/** The re-export from the folder's index (same form as its other lines), or a new index for a component in its own folder. */
export async function reExportStep(context: ProjectContext, read: (path: string) => Promise<string | null>, place: Placement, componentPath: string, name: string, conventions: Conventions): Promise<PlanStep | null> {
  const folder = posix.dirname(componentPath);
  if (place.indexFile) return null;
  if (place.perFolder) {
    const sample = Object.keys(context.files).find((path) => path.startsWith(`${place.folder}/`) && /\/index\.ts$/.test(path));
    const star = sample ? /export \* from/.test((await read(sample)) ?? '') : true;
    const specifier = `./${posix.basename(componentPath).replace(/\.[jt]sx$/, '')}`;
    const content = await printSnippet(posix.join(folder, 'index.ts'), star ? `export * from '${specifier}';` : `export { ${name} } from '${specifier}';`, context.style, '');
    return { action: 'update-exports', path: posix.join(folder, 'index.ts'), summary: `the ${name} folder's index, like the other component folders`, content };
  }
  const indexPath = ['index.ts', 'index.tsx', 'index.js', 'index.jsx'].map((file) => posix.join(folder, file)).find((path) => context.files[path]);
  if (!indexPath) return null;
  const text = await read(indexPath);
  // An index that re-exports none of the folder's modules (a package's `cn` helper) is not where components are listed.
  if (text === null || !/^export\s.*\bfrom\s+['"]\.\//m.test(text)) return null;
  const specifier = /\.vue$/.test(componentPath) ? `./${posix.basename(componentPath)}` : importSpecifier(indexPath, componentPath, conventions);
  const star = /^export \* from/m.test(text) && !/^export \{/m.test(text);
  const line = star ? `export * from '${specifier}';` : place.defaultExport ? `export { default as ${name} } from '${specifier}';` : `export { ${name} } from '${specifier}';`;
  const parsed = parseExisting(indexPath, text);
  const last = children(parsed.program, 'body').at(-1);
  const printed = await printSnippet(indexPath, line, context.style, '');
  const content = last ? applyEdits(indexPath, text, [afterStatement(text, parsed, last, printed, { blankLine: false })], `in ${indexPath}`) : `${text}${printed}`;
  return { action: 'update-exports', path: indexPath, summary: `re-export ${name}`, content };
}

/** An entry in the workspace package's `exports` map when it lists its components one by one (`"./button": "./src/button.tsx"`). */
export async function packageExportStep(context: ProjectContext, read: (path: string) => Promise<string | null>, componentPath: string): Promise<PlanStep | null> {
  const packageRoot = /^((?:packages|libs)\/[^/]+)\//.exec(componentPath)?.[1];
  if (!packageRoot) return null;
  const manifestPath = `${packageRoot}/package.json`;
  const text = await read(manifestPath);
  if (!text) return null;
  const relative = `./${componentPath.slice(packageRoot.length + 1)}`;
  const key = `./${posix.basename(componentPath).replace(/\.[jt]sx?$/, '')}`;
  const entries = [...text.matchAll(/^(\s*)"(\.\/[\w.-]+)":\s*"(\.\/src\/[\w.-]+\.[jt]sx?)"(,?)$/gm)];
  if (entries.length === 0 || text.includes(`"${key}"`)) return null;
  const before = [...entries].reverse().find((entry) => (entry[2] as string).localeCompare(key) < 0) ?? null;
  const indent = (entries[0]?.[1] ?? '    ').replace(/^[\s\S]*\n/, '');
  if (!before) {
    const first = entries[0] as RegExpMatchArray;
    const at = (first.index as number) + (first[1] as string).lastIndexOf('\n') + 1;
    return { action: 'modify-file', path: manifestPath, summary: `export ${key} from ${packageRoot}`, content: `${text.slice(0, at)}${indent.replace(/^[\s\S]*\n/, '')}"${key}": "${relative}",\n${text.slice(at)}` };
  }
  const end = (before.index as number) + before[0].length;
  const hadComma = before[4] === ',';
  const insertion = `${hadComma ? '' : ','}\n${indent}"${key}": "${relative}"${hadComma ? ',' : ''}`;
  return { action: 'modify-file', path: manifestPath, summary: `export ${key} from ${packageRoot} (its package.json lists each component)`, content: `${text.slice(0, end)}${insertion}${text.slice(end)}` };
}
