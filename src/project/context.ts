// /analyze-project: builds and loads `.cadre/context.json` (file index, import graph, symbol index, detected stack and style).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readCiInstall } from '../container/ci-install.js';
import { CadreError } from '../errors.js';
import { isParsablePath, parseSource } from './ast.js';
import { cacheSecret, decodeCacheDocument, encodeCacheDocument, isRecord } from './cache-document.js';
import { describeSystemError, isSystemError, writeCacheFile } from './cache-write.js';
import { type PackageJson, type Stack, allDependencies, detectStack } from './detect.js';
import { type FileFacts, extractFacts } from './facts.js';
import { type FileWarning, type ListedFile, contentHash, languageOf, listProjectFiles, stopIfAborted } from './files.js';
import { type ImportAliases, loadImportAliases } from './import-aliases.js';
import { readPrettierConfig } from './prettier-config.js';
import { isRuntimeSource } from './roles.js';
import { resolveImport } from './resolve.js';
import { type CodeStyle, detectStyle } from './style.js';
import { summarizeContext } from './summary.js';

/** Bumped whenever the shape or the extraction changes; older caches are rebuilt. */
export const contextVersion = 4;

export type FileEntry = {
  hash: string;
  size: number;
  mtimeMs: number;
  language: string;
  /** Parser facts for scripts and components; null for other files or when the file does not parse. */
  facts: FileFacts | null;
  parseErrors: number;
  /** Stylesheets: declares CSS custom properties. */
  cssVariables?: boolean;
};

export type ProjectContext = Stack & {
  version: number;
  root: string;
  generatedAt: string;
  packageJson: PackageJson | null;
  languages: Record<string, number>;
  style: CodeStyle;
  files: Record<string, FileEntry>;
  /** Import graph: file → files it imports (relative paths inside the project). */
  importGraph: Record<string, string[]>;
  /** Symbol index: name → where it is declared. */
  symbols: Record<string, { file: string; line: number; kind: string; exported: boolean }[]>;
};

export type AnalyzeProjectResult = {
  context: ProjectContext;
  summary: string;
  changed: number;
  reused: number;
  /** Files that could not be read, and a cache that could not be written: said once each, the context is built anyway. */
  warnings: FileWarning[];
};

export type AnalyzeProjectOptions = {
  cwd: string;
  onProgress?: (done: number, total: number) => void;
  /** Ctrl-C: indexing stops with an `interrupted` error and `.cadre/context.json` is left as it was. */
  signal?: AbortSignal;
  /** The person's host-only keys folder: the cache is signed with the key kept there (none: good for this process only). */
  keysDir?: string;
};

export function contextPath(cwd: string): string {
  return join(cwd, '.cadre', 'context.json');
}

/**
 * The context cadre cached for this project, or null when there is none, it was written by another version, or it is not
 * cadre's: a `.cadre/context.json` that came with the project (or was edited) does not carry this host's signature.
 */
export async function loadProjectContext(cwd: string, options: { keysDir?: string; secret?: Buffer } = {}): Promise<ProjectContext | null> {
  const text = await readFile(contextPath(cwd), 'utf8').catch(() => '');
  const parsed = decodeCacheDocument(text, options.secret ?? (await cacheSecret(options.keysDir)));
  if (!isRecord(parsed) || parsed.version !== contextVersion || !isRecord(parsed.files)) return null;
  return parsed as unknown as ProjectContext;
}

/** Builds (or refreshes) the context; only files whose size, mtime or hash changed are parsed again. */
export async function analyzeProject(options: AnalyzeProjectOptions): Promise<AnalyzeProjectResult> {
  const { cwd, signal } = options;
  const secret = await cacheSecret(options.keysDir);
  const warnings: FileWarning[] = [];
  const warn = (warning: FileWarning | null): void => {
    if (warning) warnings.push(warning);
  };
  const previous = await loadProjectContext(cwd, { ...(secret ? { secret } : {}) });
  const listed = await listProjectFiles(cwd, { signal, onWarning: warn }).catch((error: unknown) => {
    if (!isSystemError(error)) throw error;
    throw new CadreError('project.unreadable', `Cannot read the project folder ${cwd} (${describeSystemError(error)}).`, { remedy: 'Check that the folder exists and is readable.', cause: error });
  });
  const files: Record<string, FileEntry> = {};
  let changed = 0;
  let reused = 0;
  let done = 0;
  const queue = [...listed];
  const index = async (item: ListedFile): Promise<void> => {
    const old = previous?.files[item.path];
    if (old && old.size === item.size && old.mtimeMs === item.mtimeMs) {
      files[item.path] = old;
      reused += 1;
      return;
    }
    const text = await readFile(join(cwd, item.path), 'utf8').catch((error: unknown) => {
      if (!isSystemError(error)) throw error;
      warn({ file: item.path, message: `could not be read (${describeSystemError(error)}); it was left out of the index.` });
      return null;
    });
    if (text === null) return;
    const hash = contentHash(text);
    if (old && old.hash === hash) {
      files[item.path] = { ...old, mtimeMs: item.mtimeMs };
      reused += 1;
    } else {
      files[item.path] = indexFile(item.path, text, hash, item);
      changed += 1;
    }
  };
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      stopIfAborted(signal);
      await index(item);
      done += 1;
      if (!signal?.aborted) options.onProgress?.(done, listed.length);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  stopIfAborted(signal);
  const ordered = Object.fromEntries(listed.flatMap((item) => (files[item.path] ? [[item.path, files[item.path] as FileEntry]] : [])));
  const context = await buildContext(cwd, ordered, await styleSamples(cwd, ordered), await loadImportAliases(cwd, warn));
  stopIfAborted(signal);
  const removed = previous ? Object.keys(previous.files).filter((path) => !(path in ordered)).length : 0;
  if (changed > 0 || removed > 0 || !previous || JSON.stringify(stripVolatile(previous)) !== JSON.stringify(stripVolatile(context))) {
    warn(await writeCacheFile(cwd, contextPath(cwd), encodeCacheDocument(context, secret)));
  }
  warnings.sort((left, right) => (left.file < right.file ? -1 : left.file > right.file ? 1 : 0));
  return { context, summary: summarizeContext(context, { changed, reused }), changed: changed + removed, reused, warnings };
}

/**
 * Up to 40 runtime source files to sample the code style from, read whether or not they changed (a warm cache must detect the
 * same style as a cold one); tests, mocks, fixtures, stories and generated files are not the project's own style.
 */
async function styleSamples(cwd: string, files: Record<string, FileEntry>): Promise<string[]> {
  const paths = Object.keys(files).filter((path) => /\.[cm]?[jt]sx?$/.test(path) && isRuntimeSource(path) && files[path]?.facts?.generated !== true).slice(0, 40);
  const texts = await Promise.all(paths.map((path) => readFile(join(cwd, path), 'utf8').catch(() => null)));
  return texts.filter((text): text is string => text !== null);
}

function stripVolatile(context: ProjectContext): unknown {
  return { ...context, generatedAt: '' };
}

function indexFile(path: string, text: string, hash: string, item: { size: number; mtimeMs: number }): FileEntry {
  const entry: FileEntry = { hash, size: item.size, mtimeMs: item.mtimeMs, language: languageOf(path), facts: null, parseErrors: 0 };
  if (/\.(?:css|s[ac]ss|less)$/.test(path)) entry.cssVariables = /(?:^|[\s;{])--[\w-]+\s*:/.test(text);
  if (isParsablePath(path)) {
    try {
      const parsed = parseSource(path, text);
      if (parsed) {
        entry.parseErrors = parsed.errors.length;
        entry.facts = extractFacts(parsed, text);
      }
    } catch {
      entry.parseErrors = 1;
    }
  }
  return entry;
}

async function buildContext(cwd: string, files: Record<string, FileEntry>, samples: string[], aliases: ImportAliases): Promise<ProjectContext> {
  const packageJson = await readJson<PackageJson>(join(cwd, 'package.json'));
  const topLevel = await readdir(cwd).catch(() => [] as string[]);
  const paths = [...new Set([...Object.keys(files), ...topLevel])];
  const pathSet = new Set(Object.keys(files));
  const importSources = new Set<string>();
  const importGraph: Record<string, string[]> = {};
  const symbols: ProjectContext['symbols'] = {};
  const languages: Record<string, number> = {};
  const identifiers: string[] = [];
  const importKinds = { esm: 0, commonjs: 0 };
  for (const [path, entry] of Object.entries(files)) {
    languages[entry.language] = (languages[entry.language] ?? 0) + 1;
    if (!entry.facts) continue;
    const edges = new Set<string>();
    for (const fact of entry.facts.imports) {
      importSources.add(fact.source);
      if (fact.kind === 'require') importKinds.commonjs += 1;
      else if (fact.kind === 'import') importKinds.esm += 1;
      const target = resolveImport(path, fact.source, pathSet, aliases);
      if (target) edges.add(target);
    }
    if (edges.size > 0) importGraph[path] = [...edges].sort();
    for (const symbol of entry.facts.symbols) {
      (symbols[symbol.name] ??= []).push({ file: path, line: symbol.line, kind: symbol.kind, exported: symbol.exported });
      if (symbol.kind === 'function' || symbol.kind === 'variable') identifiers.push(symbol.name);
    }
  }
  const stack = detectStack({
    packageJson,
    paths,
    importSources,
    usesCssVariables: Object.values(files).some((entry) => entry.cssVariables === true),
    ciManager: (await readCiInstall(cwd))?.manager,
  });
  const style = detectStyle({
    editorconfig: await readText(join(cwd, '.editorconfig')),
    prettier: await readPrettierConfig(cwd, packageJson, await workspacePackages(cwd, Object.keys(files))),
    prettierMajor: prettierMajor(packageJson),
    eslintConfigText: await firstText(cwd, ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', '.eslintrc.json', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc', '.eslintrc.yml']),
    samples,
    sourcePaths: Object.keys(files).filter((path) => /\.[cm]?[jt]sx?$/.test(path)),
    identifiers,
    importKinds,
  });
  return { version: contextVersion, root: cwd, generatedAt: new Date().toISOString(), ...stack, packageJson, languages, style, files, importGraph, symbols };
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

async function readJson<T>(path: string): Promise<T | null> {
  const text = await readText(path);
  if (text === null) return null;
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as T;
  } catch {
    return null;
  }
}

async function firstText(cwd: string, names: string[]): Promise<string | null> {
  for (const name of names) {
    const text = await readText(join(cwd, name));
    if (text !== null) return text;
  }
  return null;
}

/** The major version of the prettier dependency, or null when the project does not depend on it. */
function prettierMajor(packageJson: PackageJson | null): number | null {
  const range = allDependencies(packageJson).prettier;
  if (range === undefined) return null;
  const major = /(\d+)/.exec(range)?.[1];
  return major ? Number(major) : 3;
}

/** Workspace packages of a monorepo by name → folder, from the indexed package.json files below the root. */
async function workspacePackages(cwd: string, paths: string[]): Promise<Map<string, string>> {
  const packages = new Map<string, string>();
  for (const path of paths.filter((candidate) => candidate.endsWith('/package.json'))) {
    const name = (await readJson<{ name?: unknown }>(join(cwd, path)))?.name;
    if (typeof name === 'string') packages.set(name, path.slice(0, -'/package.json'.length));
  }
  return packages;
}
