// The project as the project-level rules see it: the manifest, and each analysed file's facts.
import type { PackageJson } from '../../project/detect.js';
import type { FileFacts } from '../../project/facts.js';
import type { ImportAliases } from '../../project/import-aliases.js';
import type { SecurityFacts } from './security/flows.js';
import type { VendoredLibrary } from './vendored.js';

export type FileView = {
  facts: FileFacts | null;
  lines: number;
  fingerprints?: CloneFingerprint[];
  security?: SecurityFacts;
  /** Third-party libraries this file is a copy of, or loads by versioned URL. */
  vendored?: VendoredLibrary[];
  /** Why the file is not the project's own code, so neither its findings nor its lines count. */
  excluded?: ExcludedReason;
};

export type ExcludedReason = 'vendored' | 'minified' | 'generated';

/** A window of normalised tokens: its hash, and the lines it spans. */
export type CloneFingerprint = [hash: number, startLine: number, endLine: number];

export type ProjectView = {
  root: string;
  packageJson: PackageJson | null;
  /** tsconfig/jsconfig paths and baseUrl: how the project's imports name its own files. */
  aliases: ImportAliases;
  /** Every package.json of the project by folder ('' for the root): workspaces declare their own dependencies. */
  manifests: Map<string, PackageJson>;
  /** Every listed path of the target, whatever the analysis reads (type declarations, assets…). */
  paths: readonly string[];
  /** Folders of code a tool wrote into the project (shadcn/ui components): not the project's own quality. */
  generatedFolders: readonly string[];
  /** What is installed (from the lockfile, else node_modules), when known; `location` is e.g. node_modules/a/node_modules/b. */
  installed: InstalledPackage[];
  files: Map<string, FileView>;
};

/**
 * An installed package; `dev` when the lockfile says only development needs it; `requires` the `name@version` of each
 * package this copy depends on, as the lockfile resolves them (absent when the lockfile does not say: pnpm, node_modules).
 */
export type InstalledPackage = { name: string; version: string; location: string; dev?: boolean; requires?: string[] };
