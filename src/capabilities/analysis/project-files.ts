// What the project stage reads besides the analysed files: workspace manifests, and folders of copied-in component libraries.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackageJson } from '../../project/detect.js';
import type { FileWarning, ListedFile } from '../../project/files.js';
import type { ImportAliases } from '../../project/import-aliases.js';
import { importBases } from '../../project/resolve.js';

/** package.json as an object, or null with a warning naming the file when it is not one. */
export function parseManifest(text: string | null, warn: (warning: FileWarning) => void, file = 'package.json'): PackageJson | null {
  if (text === null) return null;
  try {
    // npm reads a manifest that starts with a UTF-8 byte-order mark (Windows editors write one); so does cadre.
    const parsed = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as PackageJson;
    warn({ file, message: 'is not a JSON object; dependencies were not checked.' });
  } catch (error) {
    warn({ file, message: `is not valid JSON (${(error as Error).message}); dependencies were not checked.` });
  }
  return null;
}

/** The root manifest and those of workspace packages (each folder with a package.json). */
export async function readManifests(root: string, listed: readonly ListedFile[], rootManifest: PackageJson | null, warn: (warning: FileWarning) => void): Promise<Map<string, PackageJson>> {
  const manifests = new Map<string, PackageJson>();
  if (rootManifest) manifests.set('', rootManifest);
  for (const file of listed) {
    if (!/(?:^|\/)package\.json$/.test(file.path) || file.path === 'package.json') continue;
    const text = await readFile(join(root, file.path), 'utf8').catch(() => null);
    const manifest = parseManifest(text, warn, file.path);
    if (manifest) manifests.set(file.path.slice(0, -'/package.json'.length), manifest);
  }
  return manifests;
}

/**
 * shadcn/ui copies its components into the folder components.json names (aliases.ui); projects set up before
 * components.json keep them in components/ui, next to class-variance-authority and Radix in package.json.
 */
export async function componentLibraryFolders(root: string, aliases: ImportAliases, manifest: PackageJson | null, listed: readonly ListedFile[]): Promise<string[]> {
  const text = await readFile(join(root, 'components.json'), 'utf8').catch(() => null);
  if (text !== null) {
    try {
      const ui = (JSON.parse(text) as { aliases?: { ui?: unknown } }).aliases?.ui;
      if (typeof ui === 'string') return importBases('', ui, aliases) ?? [ui.replace(/^\.\//, '')];
    } catch {
      // Not shadcn's file after all: fall through to the folder convention.
    }
  }
  const declared = Object.keys({ ...manifest?.dependencies, ...manifest?.devDependencies });
  if (!declared.includes('class-variance-authority') || !declared.some((name) => name.startsWith('@radix-ui/'))) return [];
  return [...new Set(listed.map((file) => /^(?:(?:src\/)?components\/ui)\//.exec(file.path)?.[0]?.slice(0, -1)).filter((folder): folder is string => folder !== undefined))];
}
