// Unpacks a project of the shared real-project corpus (../shared/corpus) into a temporary folder, checking its sha256 first.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const corpusDir = resolve(process.cwd(), '../shared/corpus');

export interface UnpackedProject {
  root: string;
  dispose(): void;
}

type CorpusEntry = { name: string; archive: { file: string; sha256: string } };

function manifest(): { projects: CorpusEntry[] } {
  const manifestFile = join(corpusDir, 'MANIFEST.json');
  if (!existsSync(manifestFile)) throw new Error(`the real-project corpus is missing at ${corpusDir}`);
  return JSON.parse(readFileSync(manifestFile, 'utf8')) as { projects: CorpusEntry[] };
}

/** Every project of the corpus, in MANIFEST order. */
export function corpusProjects(): CorpusEntry[] {
  return manifest().projects;
}

/** A fresh copy of the project; a missing corpus or a changed archive fails (never skips). */
export function unpackCorpus(name: string): UnpackedProject {
  const entry = manifest().projects.find((project) => project.name === name);
  if (!entry) throw new Error(`the corpus has no project named ${name}`);
  const archive = join(corpusDir, entry.archive.file);
  const sha = createHash('sha256').update(readFileSync(archive)).digest('hex');
  if (sha !== entry.archive.sha256) throw new Error(`${name}: the archive differs from MANIFEST.json`);
  const tmp = mkdtempSync(join(tmpdir(), `corpus-${name}-`));
  execFileSync('tar', ['-xzf', archive, '-C', tmp]);
  return { root: join(tmp, name), dispose: () => rmSync(tmp, { recursive: true, force: true }) };
}
