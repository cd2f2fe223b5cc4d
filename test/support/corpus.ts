// The real-project corpus beside the checkout (../shared/corpus): its MANIFEST, and fresh copies of a project unpacked into a temporary folder.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

/** vitest runs from the repository root; the corpus sits beside the checkout. */
export const corpusDir = resolve(process.cwd(), '../shared/corpus');

export type ManifestCheck = { step: string; command: string; result: 'pass' | 'fail' | 'timeout'; exit_code: number; seconds: number; notes?: string };

export type ManifestEntry = {
  name: string;
  category: string;
  archive: { file: string; sha256: string };
  install: ManifestCheck;
  checks: ManifestCheck[];
};

let manifest: { projects: ManifestEntry[] } | null = null;

/** The corpus MANIFEST; a missing corpus fails loudly (a skipped real-world check looks like a passing one). */
function loadManifest(): { projects: ManifestEntry[] } {
  if (!manifest) {
    try {
      manifest = JSON.parse(readFileSync(join(corpusDir, 'MANIFEST.json'), 'utf8')) as { projects: ManifestEntry[] };
    } catch (error) {
      throw new Error(`The real-project corpus is missing at ${corpusDir} (expected MANIFEST.json there): ${(error as Error).message}`);
    }
  }
  return manifest;
}

/** The MANIFEST entry of a project; a missing corpus or project fails loudly. */
export function corpusEntry(name: string): ManifestEntry {
  const manifest = loadManifest();
  const entry = manifest.projects.find((project) => project.name === name);
  if (!entry) throw new Error(`The corpus has no project named ${name}.`);
  return entry;
}

/** The sha256 of a project's archive, checked against MANIFEST (the guard that the archive was not modified). */
export function corpusArchive(name: string): { path: string; sha256: string } {
  const entry = corpusEntry(name);
  const path = join(corpusDir, entry.archive.file);
  const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
  if (sha256 !== entry.archive.sha256) throw new Error(`${name}: the archive differs from MANIFEST.json (sha256 ${sha256}).`);
  return { path, sha256 };
}

/** Every project of the corpus, in MANIFEST order. */
export function corpusProjects(): ManifestEntry[] {
  return loadManifest().projects;
}

export type CorpusCopy = { root: string; entry: ManifestEntry; dispose: () => void };

/** A fresh copy of a corpus project (the name other tests use for it). */
export type UnpackedProject = CorpusCopy;

/** A fresh copy of the project in a new temporary folder; `dispose` removes the folder. */
export function unpackCorpus(name: string): CorpusCopy {
  return { ...unpackArchive(corpusArchive(name).path, name, 'corpus'), entry: corpusEntry(name) };
}

/** Unpacks `archive` (one top-level folder `name/`) into a new temporary folder; `dispose` removes that folder. */
function unpackArchive(archive: string, name: string, kind: string): { root: string; dispose: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), `${kind}-${name}-`));
  try {
    execFileSync('tar', ['-xzf', archive, '-C', tmp]);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  return { root: join(tmp, name), dispose: () => rmSync(tmp, { recursive: true, force: true }) };
}

/** The real, non-vulnerable projects: the ones generation must fit. */
export const generationProjects = [
  'prisma-rest-express', 'node-express-boilerplate', 'fastify-demo', 'nestjs-boilerplate', 'koa-typescript-rest',
  'shadcn-admin', 'material-kit-react', 'taxonomy', 'vitesse', 'create-t3-turbo',
] as const;

export type GenerationProject = (typeof generationProjects)[number];

/** The real repositories vendored beside the tests (test/fixtures/repos), for what the corpus lacks. */
const vendoredDir = resolve(process.cwd(), 'test/fixtures/repos');

/** A fresh copy of a vendored repository, its archive checked against test/fixtures/repos/MANIFEST.json first. */
export function unpackVendored(name: string): { root: string; dispose: () => void } {
  const { archives } = JSON.parse(readFileSync(join(vendoredDir, 'MANIFEST.json'), 'utf8')) as { archives: { name: string; archive: { file: string; sha256: string } }[] };
  const entry = archives.find((archive) => archive.name === name);
  if (!entry) throw new Error(`test/fixtures/repos has no repository named ${name}.`);
  const path = join(vendoredDir, entry.archive.file);
  const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
  if (sha256 !== entry.archive.sha256) throw new Error(`${name}: the archive differs from MANIFEST.json (sha256 ${sha256}).`);
  return unpackArchive(path, name, 'vendored');
}

/** Every file under `root` (paths relative to it, `/`-separated), for serving an unpacked project from the local git server. */
export function filesOf(root: string): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(root, path).split(sep).join('/')] = readFileSync(path);
  }
  return files;
}
