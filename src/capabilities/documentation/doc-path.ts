// Where a document goes: into the one the project already has under another spelling (docs/api-documentation.md, docs/architecture.md, readme.md), else cadre's name.
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** What each of cadre's documents may be called in a project, by its file name in the same folder. */
const spellings: Record<string, RegExp> = {
  'README.md': /^readme\.md$/i,
  'CONTRIBUTING.md': /^contributing\.md$/i,
  'docs/API.md': /^api(?:[-_. ]?(?:doc|docs|documentation|reference))?\.md$/i,
  'docs/EXAMPLES.md': /^examples\.md$/i,
  'docs/ARCHITECTURE.md': /^architecture\.md$/i,
};

/** The project's own file for `path` when it has one (cadre's name first, then the first other spelling by name), else `path`. */
export async function documentPath(cwd: string, path: string): Promise<string> {
  const pattern = spellings[path];
  if (!pattern) return path;
  const folder = posix.dirname(path);
  const names = await readdir(join(cwd, folder), { withFileTypes: true }).then((entries) => entries.filter((entry) => entry.isFile()).map((entry) => entry.name).sort(), () => [] as string[]);
  if (names.includes(posix.basename(path))) return path;
  const own = names.find((name) => pattern.test(name));
  return own ? posix.join(folder, own).replace(/^\.\//, '') : path;
}
