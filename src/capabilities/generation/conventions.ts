// What generators read from the project context: language, import specifier style, where things live, existing helpers.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import { CadreError, exitCodes } from '../../errors.js';
import { dirname, join, posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import { allDependencies } from '../../project/detect.js';
import { isRuntimeSource } from '../../project/roles.js';
import type { SourceStyle } from './format.js';

export type Conventions = {
  typescript: boolean;
  /** '.js' when relative imports name the compiled file (NodeNext), '.ts' when they name the source (allowImportingTsExtensions, Node's type stripping), '' when they leave the extension off. */
  importSuffix: ImportSuffix;
  style: SourceStyle;
  dependencies: Set<string>;
  esm: boolean;
};

/** Whether conventions and imports may come from this file: runtime source, never tests, mocks, fixtures, stories or generated code. */
export function isConventionSource(context: ProjectContext, path: string): boolean {
  const entry = context.files[path];
  return isRuntimeSource(path) && entry?.facts?.generated !== true;
}

export type ImportSuffix = '' | '.js' | '.ts';

/**
 * The extension the project's own relative imports of code carry: the one at least 60% of them share. Where none is that clear
 * but most carry one (extensionless imports do not resolve in Node's ESM), the more common of '.js' and '.ts'; else none.
 */
export function importSuffixOf(context: ProjectContext): ImportSuffix {
  const counts = { '': 0, '.js': 0, '.ts': 0 };
  for (const [path, entry] of Object.entries(context.files)) {
    if (!isConventionSource(context, path)) continue;
    for (const fact of entry.facts?.imports ?? []) {
      if (!fact.source.startsWith('.')) continue;
      if (/\.[cm]?jsx?$/.test(fact.source)) counts['.js'] += 1;
      else if (/\.[cm]?tsx?$/.test(fact.source)) counts['.ts'] += 1;
      // './users.service' ends in a dot-word that is part of the name, not an extension of another kind of file.
      else if (!/\.(?:json|css|s[ac]ss|less|styl|vue|svelte|astro|svg|png|jpe?g|gif|webp|ico|html?|md|graphql|gql|txt|wasm|node|d)$/.test(fact.source)) counts[''] += 1;
    }
  }
  const total = counts[''] + counts['.js'] + counts['.ts'];
  const clear = (Object.keys(counts) as ImportSuffix[]).find((suffix) => total > 0 && counts[suffix] >= 0.6 * total);
  if (clear !== undefined) return clear;
  if (counts['.js'] + counts['.ts'] > counts['']) return counts['.ts'] > counts['.js'] ? '.ts' : '.js';
  return '';
}

export function conventionsOf(context: ProjectContext): Conventions {
  const typescript = (context.languages.TypeScript ?? 0) > 0 || 'typescript' in allDependencies(context.packageJson);
  return {
    typescript,
    importSuffix: importSuffixOf(context),
    style: context.style,
    dependencies: new Set(Object.keys(allDependencies(context.packageJson))),
    esm: context.style.importStyle !== 'commonjs',
  };
}

/** The specifier to import `target` from `from` (both project-relative), in the project's style. */
export function importSpecifier(from: string, target: string, conventions: Conventions): string {
  const extension = /\.(?:[cm]?[jt]sx?)$/.exec(target)?.[0] ?? '';
  let relative = posix.relative(posix.dirname(from), target.slice(0, target.length - extension.length));
  if (!relative.startsWith('.')) relative = `./${relative}`;
  if (/\.(?:vue|css|s[ac]ss|less)$/.test(target)) return posix.relative(posix.dirname(from), target).replace(/^(?!\.)/, './');
  // '.ts' projects name the file as it is (.tsx, .mts too); '.js' ones name what a TypeScript file compiles to, a JavaScript file as it is.
  if (conventions.importSuffix === '.ts') return `${relative}${extension || '.ts'}`;
  if (conventions.importSuffix === '.js') return `${relative}${extension.replace(/^\.([cm]?)tsx?$/, '.$1js') || '.js'}`;
  return relative;
}

/** The first runtime source file for which `test` holds, preferring paths under src/. */
export function findFile(context: ProjectContext, test: (path: string, entry: ProjectContext['files'][string]) => boolean): string | null {
  const paths = Object.keys(context.files).filter((path) => isConventionSource(context, path) && test(path, context.files[path] as ProjectContext['files'][string]));
  return paths.sort((left, right) => Number(!left.startsWith('src/')) - Number(!right.startsWith('src/')) || left.length - right.length)[0] ?? null;
}

/** An exported symbol's declaring runtime source file, when the project has one with that name and kind. */
export function findExport(context: ProjectContext, name: string, kinds?: string[]): string | null {
  const places = (context.symbols[name] ?? []).filter((place) => place.exported && (!kinds || kinds.includes(place.kind)) && isConventionSource(context, place.file) && exportsName(context, place.file, name));
  return places.sort((left, right) => left.file.length - right.file.length)[0]?.file ?? null;
}

/** Whether `file` exports `name` (`default` for a default export), as an import of it would need. */
export function exportsName(context: ProjectContext, file: string, name: string): boolean {
  return context.files[file]?.facts?.exports.includes(name) ?? false;
}

/** The folder (project-relative) holding most files that match, or `fallback`. */
export function busiestFolder(context: ProjectContext, test: (path: string, entry: ProjectContext['files'][string]) => boolean, fallback: string): string {
  const counts = new Map<string, number>();
  for (const [path, entry] of Object.entries(context.files)) {
    if (isConventionSource(context, path) && test(path, entry)) counts.set(dirname(path), (counts.get(dirname(path)) ?? 0) + 1);
  }
  const best = [...counts.entries()].sort((left, right) => right[1] - left[1] || left[0].length - right[0].length)[0];
  return best && best[0] !== '.' ? best[0] : fallback;
}

/** A generation that would overwrite something that exists, or put it where the project would not find it. */
export function existsError(message: string): CadreError {
  return new CadreError('generation.exists', message, { remedy: 'Choose another name, or ask for a change to the existing code (that needs a model).', exitCode: exitCodes.usage });
}

/** An endpoint for a resource the project has no model of, asked without the fields to make one. */
export function missingFieldsError(resource: string, kind: 'entity' | 'model' | 'table', task: { method: string; path: string }): CadreError {
  return new CadreError('generation.missing-fields', `${resource} has no ${kind} yet, and the task lists no fields for one.`, {
    remedy: `List its fields, e.g. "add an endpoint ${task.method} ${task.path} with fields name:string price:number" (or "with name and price": types come from the names).`,
    exitCode: exitCodes.usage,
  });
}

/** Files as they were before a plan was applied (null: absent), seen by generators in place of the disk's (see withProjectFiles). */
const overlay = new AsyncLocalStorage<Record<string, string | null>>();

/** Runs `work` with the generators reading `files` (project-relative paths) in place of what is on disk now. */
export function withProjectFiles<T>(files: Record<string, string | null>, work: () => Promise<T>): Promise<T> {
  return overlay.run(files, work);
}

export async function readProjectFile(cwd: string, path: string): Promise<string | null> {
  const seen = overlay.getStore();
  if (seen && Object.hasOwn(seen, path)) return seen[path] ?? null;
  try {
    return await readFile(join(cwd, path), 'utf8');
  } catch {
    return null;
  }
}

/** Inserts import lines after the last top-level import of `text` (or after the opening comment). */
export function addImports(text: string, lines: string[]): string {
  const fresh = lines.filter((line) => !text.includes(line.replace(/;$/, '')));
  if (fresh.length === 0) return text;
  const rows = text.split('\n');
  let last = -1;
  for (const [index, row] of rows.entries()) {
    if (/^import\b/.test(row) || /^(?:const|let|var)\s+\S+\s*=\s*require\(/.test(row)) last = index;
    if (/^import\b[^;'"]*$/.test(row)) {
      while (last + 1 < rows.length && !/from\s+['"]/.test(rows[last] ?? '')) last += 1;
    }
  }
  if (last === -1) last = /^\s*\/\//.test(rows[0] ?? '') ? 0 : -1;
  rows.splice(last + 1, 0, ...fresh);
  return rows.join('\n');
}
