// What is installed: package-lock.json's packages, else the direct dependencies found in node_modules.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackageJson } from '../../project/detect.js';
import type { FileWarning } from '../../project/files.js';
import type { InstalledPackage } from './view.js';

export async function readInstalled(root: string, manifest: PackageJson | null, warn: (warning: FileWarning) => void): Promise<{ installed: InstalledPackage[]; lockfileText: string | null }> {
  const lockfileText = await readFile(join(root, 'package-lock.json'), 'utf8').catch(() => null);
  if (lockfileText !== null) {
    try {
      const lock = JSON.parse(lockfileText) as { packages?: Record<string, { version?: string; name?: string }> };
      if (lock.packages) {
        const installed = Object.entries(lock.packages).flatMap(([location, entry]): InstalledPackage[] => {
          const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
          return location.includes('node_modules/') && typeof entry.version === 'string' ? [{ name, version: entry.version, location }] : [];
        });
        return { installed, lockfileText };
      }
    } catch (error) {
      warn({ file: 'package-lock.json', message: `is not valid JSON (${(error as Error).message}); the declared ranges were checked instead.` });
    }
  }
  const names = Object.keys({ ...manifest?.dependencies, ...manifest?.devDependencies });
  const installed = (await Promise.all(names.map(async (name): Promise<InstalledPackage | null> => {
    try {
      const info = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
      return typeof info.version === 'string' ? { name, version: info.version, location: `node_modules/${name}` } : null;
    } catch {
      return null;
    }
  }))).filter((item): item is InstalledPackage => item !== null);
  return { installed, lockfileText };
}
