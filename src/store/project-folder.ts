// The project's .cadre folder, made in one place: with a .gitignore of `*`, so git status, git add -A and the tools that follow .gitignore never see cadre's files.
import { mkdir, open, readdir, readFile, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** What cadre writes as `.cadre/.gitignore`: everything in the folder, the file itself included, stays out of git. */
export const cadreGitignore = '# cadre keeps its own files (sessions, prompt history, caches, undo records) out of git.\n*\n';

/**
 * Makes `<project>/.cadre` when it is missing and gives it its `.gitignore` when it has none. An existing `.gitignore` (or
 * anything in its place, a link included) is left as it is: a person may have written their own.
 */
export async function ensureCadreFolder(cadreDir: string): Promise<void> {
  await mkdir(cadreDir, { recursive: true });
  // 'wx' creates only: it neither truncates an existing file nor follows a link left in its place.
  const handle = await open(join(cadreDir, '.gitignore'), 'wx', 0o644).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') return null;
    throw error;
  });
  if (!handle) return;
  try {
    await handle.writeFile(cadreGitignore);
  } finally {
    await handle.close();
  }
}

/** Takes away a `.cadre` folder that holds nothing but the `.gitignore` ensureCadreFolder wrote (a run that made it and then failed). */
export async function removeUnusedCadreFolder(cadreDir: string): Promise<void> {
  const names = await readdir(cadreDir).catch(() => null);
  if (names?.length !== 1 || names[0] !== '.gitignore') return;
  const gitignore = join(cadreDir, '.gitignore');
  if ((await readFile(gitignore, 'utf8').catch(() => null)) !== cadreGitignore) return;
  await unlink(gitignore).catch(() => undefined);
  await rmdir(cadreDir).catch(() => undefined);
}
