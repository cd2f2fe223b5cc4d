// Lists a project's files (respecting .gitignore and skipping build output), with content hashes.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { CadreError, exitCodes } from '../errors.js';

/** Folders never indexed: dependencies, build output, caches, VCS data. */
const skippedFolders = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'coverage', '.cadre', '.next', '.nuxt', '.svelte-kit', '.turbo', '.cache', '.vercel', '.output', 'vendor', 'bower_components', '.idea', '.vscode']);

/** Extensions the index and the analysers care about. */
const indexedExtension = /\.(?:[cm]?[jt]sx?|vue|svelte|ejs|pug|jade|hbs|handlebars|njk|nunjucks|swig|html|css|scss|sass|less|json|prisma|sql|ya?ml|md)$/;

export const maxIndexedFileBytes = 1_000_000;
/** The analyses read scripts up to this size (generated bundles aside, real files stay far below it). */
export const maxAnalysedScriptBytes = 10_000_000;

export type ListedFile = { path: string; size: number; mtimeMs: number };

export type FolderCache = { entries: Record<string, { mtimeMs: number; folders: string[]; files: string[] }>; changed: boolean };

/**
 * What a walk looked at, enough to tell later that a new walk would list the same files with only stats: each folder
 * read (relative, with a trailing slash) and its mtime, each file whose name was accepted and its size and mtime
 * (size -1 when it is not a regular file any more).
 */
export type WalkRecord = { folders: [path: string, mtimeMs: number][]; files: [path: string, size: number, mtimeMs: number][] };

/** A folder's subfolders and files, from the cache when its mtime has not moved since it was read. */
function readFolder(folder: string, prefix: string, cache: FolderCache | undefined, record: WalkRecord | undefined): { folders: string[]; files: string[] } {
  const mtimeMs = cache || record ? statSync(folder).mtimeMs : 0;
  record?.folders.push([prefix, mtimeMs]);
  const cached = cache?.entries[prefix];
  if (cached && cached.mtimeMs === mtimeMs) return cached;
  const entries = readdirSync(folder, { withFileTypes: true });
  const read = { folders: entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name), files: entries.filter((entry) => entry.isFile()).map((entry) => entry.name) };
  if (cache) {
    cache.entries[prefix] = { mtimeMs, ...read };
    cache.changed = true;
  }
  return read;
}

/** Something that went wrong with one file, said in a line: the file (relative to the project) and what happened. */
export type FileWarning = { file: string; message: string };

export type ListOptions = {
  /** Include node_modules and build folders (used when the user points an analysis at such a path). */
  includeAll?: boolean;
  /** Files to list besides the indexed extensions (the security audit reads .env files and keys). */
  alsoList?: RegExp;
  /** Only paths this accepts are listed (and stat'ed): an analysis lists what it reads. */
  accept?: (path: string) => boolean;
  /**
   * Folder contents seen before, by folder (relative, with a trailing slash): a folder whose mtime has not moved has
   * the same entries, so it is stat'ed instead of read. Updated in place; `changed` says whether to save it.
   */
  folders?: FolderCache;
  /** Filled with what the walk looked at (see WalkRecord). */
  record?: WalkRecord;
  /** Ctrl-C: the walk stops with an `interrupted` error. */
  signal?: AbortSignal;
  /**
   * Told about folders (and a .gitignore) that exist but cannot be read, and about every file left out for its size,
   * lockfiles excepted (the dependency check reads those itself): a 48 MB generated file, or a command injection at the
   * end of a 1.1 MB one, must not vanish from the index or the analyses without a word. The walk goes on without them.
   */
  onWarning?: (warning: FileWarning) => void;
  /** Scripts up to this size are listed (others stay under maxIndexedFileBytes); the analyses set it. */
  maxScriptBytes?: number;
};

const scriptName = /\.(?:[cm]?[jt]sx?|vue|svelte)$/;
const lockfileName = /^(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.ya?ml)$/;

/** Stops long work when the person pressed Ctrl-C: a typed failure (exit 130) thrown before anything half-done is written. */
export function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CadreError('interrupted', 'Interrupted: the work stopped, and nothing was written.', { exitCode: exitCodes.interrupted });
}

/**
 * Files under `root` (relative paths with forward slashes), sorted. The walk uses synchronous readdir/stat (on a
 * 6,000-file tree: 45 ms against 200–400 ms for thousands of queued promises) and yields to the event loop every
 * 100 folders so that progress output and prompts stay live.
 */
export async function listProjectFiles(root: string, options: ListOptions = {}): Promise<ListedFile[]> {
  const rules = await loadIgnore(root, options.onWarning);
  const ignores = (path: string): boolean => rules !== null && !options.includeAll && rules.ignores(path);
  const found: ListedFile[] = [];
  const folders: [absolute: string, relative: string][] = [[root, '']];
  let visited = 0;
  for (let next = folders.pop(); next !== undefined; next = folders.pop()) {
    const [folder, prefix] = next;
    visited += 1;
    if (visited % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    stopIfAborted(options.signal);
    let entries;
    try {
      entries = readFolder(folder, prefix, options.folders, options.record);
    } catch (error) {
      if (prefix !== '' && (error as NodeJS.ErrnoException).code !== 'ENOENT') options.onWarning?.({ file: prefix.slice(0, -1), message: `this folder could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); its files were left out.` });
      if (prefix === '') throw error;
      continue;
    }
    for (const name of entries.folders) {
      const path = prefix + name;
      if (name === '.git' || (!options.includeAll && skippedFolders.has(name)) || ignores(`${path}/`)) continue;
      folders.push([join(folder, name), `${path}/`]);
    }
    for (const name of entries.files) {
      const path = prefix + name;
      if (!((indexedExtension.test(name) && !name.endsWith('.min.js')) || options.alsoList?.test(name)) || (options.accept && !options.accept(path)) || ignores(path)) continue;
      const info = statSync(join(folder, name), { throwIfNoEntry: false });
      const isFile = info?.isFile() === true;
      options.record?.files.push([path, isFile && info ? info.size : -1, isFile && info ? info.mtimeMs : 0]);
      const limit = options.maxScriptBytes !== undefined && scriptName.test(name) ? Math.max(options.maxScriptBytes, maxIndexedFileBytes) : maxIndexedFileBytes;
      if (isFile && info && info.size <= limit) found.push({ path, size: info.size, mtimeMs: info.mtimeMs });
      else if (isFile && info && options.onWarning && !lockfileName.test(name)) {
        options.onWarning?.({ file: path, message: `is ${(info.size / 1_000_000).toFixed(1)} MB, over the ${limit / 1_000_000} MB the analyses read; it was left out.` });
      }
    }
  }
  return found.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/** The root .gitignore's rules, or null when there is none (or it cannot be read, which is said). */
async function loadIgnore(root: string, onWarning: ListOptions['onWarning']): Promise<Ignore | null> {
  try {
    return ignore().add(await readFile(join(root, '.gitignore'), 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') onWarning?.({ file: '.gitignore', message: `could not be read (${code ?? 'error'}); files it ignores may be included.` });
    return null;
  }
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
