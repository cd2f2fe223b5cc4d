// Resolves import specifiers to indexed files, for the import graph: relative paths, tsconfig path aliases and baseUrl.
import { posix } from 'node:path';
import { type ImportAliases, noAliases } from './import-aliases.js';

const candidateSuffixes = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.vue', '.svelte', '/index.ts', '/index.tsx', '/index.js', '/index.jsx', '/index.mjs'];

/** The bases an import may stand for: relative to the importer, through a path alias, or from baseUrl; null for packages. */
export function importBases(fromPath: string, specifier: string, aliases: ImportAliases = noAliases): string[] | null {
  if (specifier.startsWith('.')) return [posix.normalize(posix.join(posix.dirname(fromPath), specifier))];
  // A catch-all `*` alias (["node_modules/*", "src/types/*"]) also stands for every package: it does not make a specifier the project's.
  const aliased = aliases.paths.filter((alias) => alias.prefix !== '' && (alias.exact ? specifier === alias.prefix : specifier.startsWith(alias.prefix)));
  if (aliased.length > 0) return aliased.flatMap((alias) => alias.targets.map((target) => posix.normalize(posix.join(target, alias.exact ? '' : specifier.slice(alias.prefix.length)))));
  if (aliases.paths.length === 0 && (specifier.startsWith('@/') || specifier.startsWith('~/'))) return [`src/${specifier.slice(2)}`];
  return null;
}

/**
 * The indexed file an import points to, or null for packages and unresolvable paths.
 * Handles NodeNext's `.js` written for `.ts` sources, tsconfig `paths` (the common `@/` and `~/` for `src/` without
 * one) and `baseUrl` (`src/components/x` when baseUrl is the root).
 */
export function resolveImport(fromPath: string, specifier: string, files: ReadonlySet<string>, aliases: ImportAliases = noAliases): string | null {
  const bases = importBases(fromPath, specifier, aliases) ?? (aliases.baseUrl !== null ? [posix.normalize(posix.join(aliases.baseUrl, specifier))] : []);
  for (const base of bases) {
    const stems = [base];
    const jsExtension = /\.(m|c)?jsx?$/.exec(base);
    if (jsExtension) stems.push(base.slice(0, -jsExtension[0].length));
    for (const stem of stems) {
      for (const suffix of candidateSuffixes) {
        const candidate = `${stem}${suffix}`;
        if (files.has(candidate)) return candidate;
      }
    }
  }
  return null;
}
