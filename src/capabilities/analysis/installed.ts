// What is installed: from package-lock.json (v1 tree or v2/v3 packages), yarn.lock, pnpm-lock.yaml, else the direct dependencies found in node_modules.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackageJson } from '../../project/detect.js';
import type { FileWarning } from '../../project/files.js';
import type { InstalledPackage } from './view.js';

export type Installed = { installed: InstalledPackage[]; lockfileText: string | null; lockfile: string | null };

type LockEntry = { version?: unknown; name?: unknown; dev?: unknown; dependencies?: unknown; requires?: unknown };
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const keysOf = (...maps: unknown[]): string[] => maps.flatMap((map) => isObject(map) ? Object.keys(map) : []);

/** npm's v1 lockfile nests `dependencies` trees; v2 and v3 list `packages` by their node_modules location. */
export function fromPackageLock(lock: unknown): InstalledPackage[] | null {
  if (!isObject(lock)) return null;
  const wants = new Map<string, string[]>();
  let found: InstalledPackage[];
  if (isObject(lock.packages)) {
    found = Object.entries(lock.packages).flatMap(([location, entry]): InstalledPackage[] => {
      if (!isObject(entry) || !location.includes('node_modules/') || typeof entry.version !== 'string') return [];
      const name = typeof entry.name === 'string' ? entry.name : location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
      wants.set(location, keysOf(entry.dependencies, entry.optionalDependencies, entry.peerDependencies));
      return [{ name, version: entry.version, location, ...(entry.dev === true ? { dev: true } : {}) }];
    });
  } else if (isObject(lock.dependencies)) {
    found = [];
    const visit = (tree: Record<string, unknown>, prefix: string): void => {
      for (const [name, value] of Object.entries(tree)) {
        const entry = value as LockEntry;
        if (!isObject(entry)) continue;
        const location = `${prefix}node_modules/${name}`;
        if (typeof entry.version === 'string' && /^\d/.test(entry.version)) {
          found.push({ name, version: entry.version, location, ...(entry.dev === true ? { dev: true } : {}) });
          wants.set(location, keysOf(entry.requires));
        }
        if (isObject(entry.dependencies)) visit(entry.dependencies, `${location}/`);
      }
    };
    visit(lock.dependencies, '');
  } else return null;
  const byLocation = new Map(found.map((item) => [item.location, item]));
  for (const item of found) item.requires = (wants.get(item.location) ?? []).flatMap((name) => {
    const target = resolveFrom(byLocation, item.location, name);
    return target ? [`${target.name}@${target.version}`] : [];
  });
  return found;
}

/** The copy node finds for `require(name)` from a package at a location: its own node_modules, then each parent's. */
function resolveFrom(byLocation: ReadonlyMap<string, InstalledPackage>, location: string, name: string): InstalledPackage | undefined {
  let folder = location;
  for (;;) {
    const hit = byLocation.get(`${folder}/node_modules/${name}`);
    if (hit) return hit;
    const cut = folder.lastIndexOf('/node_modules/');
    if (cut === -1) return byLocation.get(`node_modules/${name}`);
    folder = folder.slice(0, cut);
  }
}

/** yarn v1 (`"name@range": version "x"`) and berry (`"name@npm:range": version: x`), with what each entry depends on. */
export function fromYarnLock(text: string): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const specs = new Map<string, string>();
  const wants = new Map<string, string[]>();
  const blocks = text.split(/\n(?=\S)/);
  for (const block of blocks) {
    const header = block.split('\n')[0] ?? '';
    const version = /\n\s+version:?\s+"?([^"\s]+)"?/.exec(block)?.[1];
    const name = /^"?((?:@[^@/"]+\/)?[^@"\s]+)@/.exec(header.trim())?.[1];
    if (!name || !version || !/^\d/.test(version) || name === '__metadata') continue;
    const key = `${name}@${version}`;
    for (const spec of header.replace(/:\s*$/, '').split(',')) specs.set(spec.trim().replace(/^"|"$/g, ''), key);
    const listed = [...block.matchAll(/\n {2}(?:dependencies|optionalDependencies|peerDependencies):?\n((?: {4}.*\n?)*)/g)]
      .flatMap((section) => [...(section[1] ?? '').matchAll(/^ {4}"?((?:@[^@/"\s]+\/)?[^"\s:]+)"?:?\s+"?([^"\n]+?)"?\s*$/gm)].map((line) => `${line[1]}@${line[2]}`));
    wants.set(key, [...(wants.get(key) ?? []), ...listed]);
    found.set(key, { name, version, location: `node_modules/${name}` });
  }
  for (const [key, item] of found) item.requires = (wants.get(key) ?? []).flatMap((spec) => specs.get(spec) ?? specs.get(spec.replace(/@(?!npm:)([^@]*)$/, '@npm:$1')) ?? []);
  return [...found.values()];
}

/** pnpm v6 (`/name@version:` or `/name/version:`) and v9 (`name@version:` under packages:). */
export function fromPnpmLock(text: string): InstalledPackage[] {
  const section = /\npackages:\n([\s\S]*?)(?:\n\S|$)/.exec(text)?.[1] ?? '';
  const found = new Map<string, InstalledPackage>();
  for (const match of section.matchAll(/^ {2}'?\/?((?:@[^@/\s']+\/)?[^@/\s':(]+)[@/](\d[^:'(\s]*)(?:\([^)]*\))*'?:/gm)) {
    const [, name, version] = match;
    if (name && version) found.set(`${name}@${version}`, { name, version, location: `node_modules/${name}` });
  }
  return [...found.values()];
}

async function readText(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch(() => null);
}

export async function readInstalled(root: string, manifest: PackageJson | null, warn: (warning: FileWarning) => void): Promise<Installed> {
  const packageLock = await readText(join(root, 'package-lock.json')) ?? await readText(join(root, 'npm-shrinkwrap.json'));
  if (packageLock !== null) {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(packageLock.replace(/^\uFEFF/, ''));
    } catch (error) {
      warn({ file: 'package-lock.json', message: `is not valid JSON (${(error as Error).message}); the declared ranges were checked instead.` });
    }
    const installed = parsed === null ? null : fromPackageLock(parsed);
    if (installed) return { installed, lockfileText: packageLock, lockfile: 'package-lock.json' };
  }
  const yarnLock = await readText(join(root, 'yarn.lock'));
  if (yarnLock !== null) return { installed: fromYarnLock(yarnLock), lockfileText: yarnLock, lockfile: 'yarn.lock' };
  const pnpmLock = await readText(join(root, 'pnpm-lock.yaml'));
  if (pnpmLock !== null) return { installed: fromPnpmLock(pnpmLock), lockfileText: pnpmLock, lockfile: 'pnpm-lock.yaml' };
  const names = Object.keys({ ...manifest?.dependencies, ...manifest?.devDependencies });
  const installed = (await Promise.all(names.map(async (name): Promise<InstalledPackage | null> => {
    try {
      const info = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
      return typeof info.version === 'string' ? { name, version: info.version, location: `node_modules/${name}` } : null;
    } catch {
      return null;
    }
  }))).filter((item): item is InstalledPackage => item !== null);
  return { installed, lockfileText: null, lockfile: null };
}
