// listProjectFiles on a real folder: .gitignore rules, skipped build and dependency folders, includeAll, sorted relative paths with sizes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProjectFiles } from '../../src/project/files.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cadre-files-'));
  const files: Record<string, string> = {
    '.gitignore': 'generated/\n*.log.js\n',
    'src/app.ts': 'export const app = 1;\n',
    'src/deep/er/util.js': 'module.exports = 2;\n',
    'src/trace.log.js': 'ignored\n',
    'generated/out.ts': 'ignored\n',
    'node_modules/pkg/index.js': 'dependency\n',
    'dist/app.js': 'build output\n',
    'README.md': '# readme\n',
    'image.png': 'not indexed',
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('listProjectFiles', () => {
  it('lists indexed files with forward-slash paths, sorted, skipping .gitignore matches and dependency/build folders', async () => {
    const listed = await listProjectFiles(root);
    expect(listed.map((file) => file.path)).toEqual(['README.md', 'src/app.ts', 'src/deep/er/util.js']);
    expect(listed[1]).toMatchObject({ size: 'export const app = 1;\n'.length });
    expect(listed[1]?.mtimeMs).toBeGreaterThan(0);
  });

  it('includes everything with includeAll', async () => {
    const listed = (await listProjectFiles(root, { includeAll: true })).map((file) => file.path);
    expect(listed).toEqual(expect.arrayContaining(['dist/app.js', 'generated/out.ts', 'node_modules/pkg/index.js', 'src/trace.log.js']));
    expect(listed).not.toContain('image.png');
  });
});
