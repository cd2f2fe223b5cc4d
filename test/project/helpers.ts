// Test helpers: copies of the example projects in real temporary folders.
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const examplesRoot = fileURLToPath(new URL('../../examples/', import.meta.url));

/** A fresh copy of `examples/<name>` in a temporary folder. */
export async function copyExample(name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `cadre-${name}-`));
  await cp(join(examplesRoot, name), folder, { recursive: true });
  return folder;
}
