// How a project's imports name its own files: tsconfig/jsconfig `paths` and `baseUrl` (read with comments and trailing commas), and `importHelpers`.
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { FileWarning } from './files.js';

export type ImportAliases = {
  /** `@/*` → `src/*`: the prefix before the star, and the folders (relative to the root) it stands for. */
  paths: { prefix: string; exact: boolean; targets: string[] }[];
  /** Folder bare specifiers resolve from (relative to the root, '' for the root itself), or null. */
  baseUrl: string | null;
  /** TypeScript imports its helpers from tslib. */
  importHelpers: boolean;
};

export const noAliases: ImportAliases = { paths: [], baseUrl: null, importHelpers: false };

/** JSON with comments and trailing commas, as TypeScript reads tsconfig.json. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (inString) {
      out += char;
      if (char === '\\') {
        out += next ?? '';
        index += 1;
      } else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && next === '/') {
      while (index < text.length && text[index] !== '\n') index += 1;
      out += '\n';
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', index + 2);
      index = end === -1 ? text.length : end + 1;
    } else {
      out += char;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** The aliases of tsconfig.json (else jsconfig.json); a file that does not parse costs a warning naming it. */
export async function loadImportAliases(root: string, warn: (warning: FileWarning) => void): Promise<ImportAliases> {
  for (const name of ['tsconfig.json', 'jsconfig.json']) {
    const text = await readFile(join(root, name), 'utf8').catch(() => null);
    if (text === null) continue;
    let config: { compilerOptions?: { baseUrl?: unknown; paths?: unknown; importHelpers?: unknown } };
    try {
      config = parseJsonc(text) as typeof config;
    } catch (error) {
      warn({ file: name, message: `does not parse (${(error as Error).message}); its path aliases were not used.` });
      return noAliases;
    }
    const options = typeof config === 'object' && config !== null && typeof config.compilerOptions === 'object' && config.compilerOptions !== null ? config.compilerOptions : {};
    const baseUrl = typeof options.baseUrl === 'string' ? posix.normalize(options.baseUrl).replace(/^\.\/?|\/$/g, '').replace(/^\.$/, '') : null;
    const paths = typeof options.paths === 'object' && options.paths !== null ? Object.entries(options.paths as Record<string, unknown>).flatMap(([pattern, targets]) => {
      if (!Array.isArray(targets)) return [];
      const strip = (value: string): string => posix.join(baseUrl ?? '', value.replace(/\*$/, '')).replace(/^\.\/?/, '').replace(/^\.$/, '');
      return [{ prefix: pattern.replace(/\*$/, ''), exact: !pattern.endsWith('*'), targets: targets.filter((target): target is string => typeof target === 'string').map(strip) }];
    }) : [];
    return { paths, baseUrl, importHelpers: options.importHelpers === true };
  }
  return noAliases;
}
