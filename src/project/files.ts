// Lists a project's files (respecting .gitignore and skipping build output), with content hashes.
import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Folders never indexed: dependencies, build output, caches, VCS data. */
const skippedFolders = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'coverage', '.cadre', '.next', '.nuxt', '.svelte-kit', '.turbo', '.cache', '.vercel', '.output', 'vendor', 'bower_components', '.idea', '.vscode']);

/** Extensions the index and the analysers care about. */
const indexedExtension = /\.(?:[cm]?[jt]sx?|vue|svelte|ejs|pug|jade|hbs|handlebars|njk|nunjucks|swig|html|css|scss|sass|less|json|prisma|sql|ya?ml|md)$/;

export const maxIndexedFileBytes = 1_000_000;

export type ListedFile = { path: string; size: number; mtimeMs: number };

export type ListOptions = {
  /** Include node_modules and build folders (used when the user points an analysis at such a path). */
  includeAll?: boolean;
};

/** Files under `root` (relative paths with forward slashes), sorted. */
export async function listProjectFiles(root: string, options: ListOptions = {}): Promise<ListedFile[]> {
  const rules = await loadIgnore(root);
  const found: ListedFile[] = [];
  const visit = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    const pending: Promise<void>[] = [];
    for (const entry of entries) {
      const absolute = join(folder, entry.name);
      const path = relative(root, absolute).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!options.includeAll && (skippedFolders.has(entry.name) || rules.ignores(`${path}/`))) continue;
        if (entry.name === '.git') continue;
        pending.push(visit(absolute));
      } else if (entry.isFile() && indexedExtension.test(entry.name) && !entry.name.endsWith('.min.js')) {
        if (!options.includeAll && rules.ignores(path)) continue;
        pending.push(stat(absolute).then((info) => {
          if (info.size <= maxIndexedFileBytes) found.push({ path, size: info.size, mtimeMs: info.mtimeMs });
        }, () => undefined));
      }
    }
    await Promise.all(pending);
  };
  await visit(root);
  return found.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

async function loadIgnore(root: string): Promise<Ignore> {
  const rules = ignore();
  try {
    rules.add(await readFile(join(root, '.gitignore'), 'utf8'));
  } catch {
    // No .gitignore: nothing more to skip.
  }
  return rules;
}

export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export function languageOf(path: string): string {
  const extension = /\.([^.]+)$/.exec(path)?.[1] ?? '';
  const names: Record<string, string> = {
    ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript',
    js: 'JavaScript', jsx: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript',
    vue: 'Vue', svelte: 'Svelte', ejs: 'EJS', pug: 'Pug', jade: 'Pug', hbs: 'Handlebars', handlebars: 'Handlebars',
    njk: 'Nunjucks', nunjucks: 'Nunjucks', swig: 'Swig', html: 'HTML', css: 'CSS', scss: 'Sass', sass: 'Sass', less: 'Less',
    json: 'JSON', prisma: 'Prisma', sql: 'SQL', yml: 'YAML', yaml: 'YAML', md: 'Markdown',
  };
  return names[extension] ?? 'Other';
}
