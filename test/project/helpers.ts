// Test helpers: copies of the example projects in real temporary folders.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { afterEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const examplesRoot = fileURLToPath(new URL('../../examples/', import.meta.url));

/** A fresh copy of `examples/<name>` in a temporary folder (without a `.cadre` cache a local run may have left there). */
export async function copyExample(name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `cadre-${name}-`));
  await cp(join(examplesRoot, name), folder, { recursive: true, filter: (source) => !/[\\/]\.cadre([\\/]|$)/.test(source) });
  return folder;
}

/** `example(name)` for a test file: copies an example, removed again after each test. */
export function useExampleCopies(): (name: string) => Promise<string> {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
  });
  return async (name) => {
    const folder = await copyExample(name);
    folders.push(folder);
    return folder;
  };
}
