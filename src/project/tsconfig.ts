// The compiler options a project's tsconfig.json resolves to (following `extends` into relative files and installed packages), and its path aliases.
import { readFile } from 'node:fs/promises';
import { dirname, join, posix, relative } from 'node:path';
import { parseJsonc } from './static-value.js';

export type CompilerOptions = {
  verbatimModuleSyntax?: boolean;
  isolatedModules?: boolean;
  strict?: boolean;
  module?: string;
  moduleResolution?: string;
  jsx?: string;
  experimentalDecorators?: boolean;
  baseUrl?: string;
  paths?: Record<string, string[]>;
  allowImportingTsExtensions?: boolean;
};

export type Tsconfig = {
  /** Where the file is, project-relative ('' when there is none). */
  path: string;
  options: CompilerOptions;
  /** Path aliases as project-relative prefixes: `@/` → `src/`. */
  aliases: { prefix: string; target: string }[];
  references: string[];
};

/** Reads `tsconfig.json` (or another config) under `cwd`; a project without one gets empty options. */
export async function readTsconfig(cwd: string, file = 'tsconfig.json'): Promise<Tsconfig> {
  const options: CompilerOptions = {};
  let baseDir = '';
  const seen = new Set<string>();
  let references: string[] = [];
  const load = async (absolute: string, depth: number): Promise<boolean> => {
    if (depth > 8 || seen.has(absolute)) return false;
    seen.add(absolute);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch {
      return false;
    }
    const json = parseJsonc(text) as { extends?: string | string[]; compilerOptions?: CompilerOptions; references?: { path?: string }[] } | null;
    if (!json) return false;
    for (const parent of [json.extends ?? []].flat()) await load(await resolveExtends(absolute, parent), depth + 1);
    if (depth === 0) references = (json.references ?? []).map((reference) => reference.path ?? '').filter(Boolean);
    const own = json.compilerOptions ?? {};
    if (own.paths || own.baseUrl) baseDir = relative(cwd, dirname(absolute)).split('\\').join('/');
    Object.assign(options, own);
    return true;
  };
  const found = await load(join(cwd, file), 0);
  const base = posix.join(baseDir, options.baseUrl ?? '.');
  const aliases = Object.entries(options.paths ?? {})
    .filter(([pattern, targets]) => pattern.endsWith('/*') && targets[0]?.endsWith('/*'))
    .map(([pattern, targets]) => ({ prefix: pattern.slice(0, -1), target: `${posix.normalize(posix.join(base, (targets[0] as string).slice(0, -1)))}/`.replace(/^\.\//, '').replace(/^\.?\/$/, '') }));
  // A solution-style tsconfig (files: [], references to tsconfig.app.json…) keeps its aliases in the referenced configs.
  if (aliases.length === 0 && references.length > 0) {
    for (const reference of references) {
      const target = posix.join(posix.dirname(file), reference);
      const referenced = await readTsconfig(cwd, target.endsWith('.json') ? target : posix.join(target, 'tsconfig.json'));
      if (referenced.aliases.length > 0) return { path: found ? file : '', options: { ...referenced.options, ...options }, aliases: referenced.aliases, references };
    }
  }
  return { path: found ? file : '', options, aliases, references };
}

/** `./tsconfig.base.json`, `../tooling/tsconfig.json`, or a package (`@tsconfig/node20/tsconfig.json`, `fastify-tsconfig`) in node_modules. */
async function resolveExtends(from: string, target: string): Promise<string> {
  if (target.startsWith('.') || target.startsWith('/')) {
    const path = join(dirname(from), target);
    return path.endsWith('.json') ? path : `${path}.json`;
  }
  for (let folder = dirname(from); ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', target);
    for (const path of [candidate, `${candidate}.json`, join(candidate, 'tsconfig.json')]) {
      if (await readFile(path, 'utf8').then(() => true, () => false)) return path;
    }
    if (dirname(folder) === folder) return candidate;
  }
}

/** The alias spelling of a project-relative path (`src/lib/utils.ts` → `@/lib/utils`), or null when no alias covers it. */
export function aliasFor(tsconfig: Tsconfig, path: string): string | null {
  const covering = tsconfig.aliases.filter((alias) => alias.target === '' || path.startsWith(alias.target)).sort((left, right) => right.target.length - left.target.length)[0];
  return covering ? `${covering.prefix}${path.slice(covering.target.length).replace(/\.(?:[cm]?[jt]sx?)$/, '').replace(/\/index$/, '')}` : null;
}
