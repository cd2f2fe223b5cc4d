// Resolves relative import specifiers to indexed files, for the import graph.
import { posix } from 'node:path';

const candidateSuffixes = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.vue', '.svelte', '/index.ts', '/index.tsx', '/index.js', '/index.jsx', '/index.mjs'];

/**
 * The indexed file an import points to, or null for packages and unresolvable paths.
 * Handles NodeNext's `.js` written for `.ts` sources and the common `@/` and `~/` aliases for `src/`.
 */
export function resolveImport(fromPath: string, specifier: string, files: ReadonlySet<string>): string | null {
  let base: string;
  if (specifier.startsWith('.')) base = posix.normalize(posix.join(posix.dirname(fromPath), specifier));
  else if (specifier.startsWith('@/') || specifier.startsWith('~/')) base = `src/${specifier.slice(2)}`;
  else return null;
  const stems = [base];
  const jsExtension = /\.(m|c)?jsx?$/.exec(base);
  if (jsExtension) stems.push(base.slice(0, -jsExtension[0].length));
  for (const stem of stems) {
    for (const suffix of candidateSuffixes) {
      const candidate = `${stem}${suffix}`;
      if (files.has(candidate)) return candidate;
    }
  }
  return null;
}
