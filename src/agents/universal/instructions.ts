// Project instructions: AGENTS.md (or CLAUDE.md where a folder has no AGENTS.md) from the project root down to the folders a task touches, within a token budget.
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import type { TokenCounter } from '../../gateway/token-estimate.js';
import type { Permissions } from '../tools/permissions.js';

/** The names read in each folder, in order of preference: the first that exists is used. */
export const instructionFileNames = ['AGENTS.md', 'CLAUDE.md'] as const;

/** Tokens of instructions a run takes in all (about 32 KB of text). */
export const instructionsBudgetTokens = 8_000;

export interface InstructionFile {
  /** Project-relative path. */
  path: string;
  text: string;
  tokens: number;
  /** Cut short at the budget. */
  truncated: boolean;
}

export interface InstructionLoader {
  /** Loads the files of every folder from the root down to each path's folder that were not loaded yet; returns them. */
  forPaths(paths: readonly string[]): Promise<InstructionFile[]>;
  loaded(): InstructionFile[];
}

/** "src/api/users.ts" → [".", "src", "src/api"]; a folder path ending in "/" counts as the folder itself. */
export function folderChain(path: string): string[] {
  const clean = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\/+/, '');
  const folder = clean.endsWith('/') ? clean.slice(0, -1) : posix.dirname(clean);
  const parts = folder === '.' || folder === '' ? [] : folder.split('/');
  return ['.', ...parts.map((_, index) => parts.slice(0, index + 1).join('/'))];
}

/** Reads at most `maxBytes` of a regular file; null when it is missing or not a regular file. */
async function readStart(absPath: string, maxBytes: number): Promise<{ text: string; cut: boolean } | null> {
  const handle = await open(absPath, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), cut: info.size > bytesRead };
  } finally {
    await handle.close();
  }
}

/** Loads instruction files on demand, each folder once, until the budget is spent. Paths go through the read permissions. */
export function createInstructionLoader(options: { permissions: Permissions; countTokens: TokenCounter; budgetTokens?: number }): InstructionLoader {
  const visited = new Set<string>();
  const files: InstructionFile[] = [];
  let left = options.budgetTokens ?? instructionsBudgetTokens;

  const loadFolder = async (folder: string): Promise<InstructionFile | null> => {
    for (const name of instructionFileNames) {
      const relPath = folder === '.' ? name : `${folder}/${name}`;
      const decision = options.permissions.check(relPath, 'read');
      if (!decision.ok) continue;
      const read = await readStart(decision.absPath, left * 8);
      if (!read) continue;
      let text = read.text.trim();
      let tokens = options.countTokens(text);
      let truncated = read.cut;
      if (tokens > left) {
        text = text.slice(0, Math.floor(text.length * (left / tokens)));
        tokens = options.countTokens(text);
        truncated = true;
      }
      if (!text) return null;
      // A file cut at the budget spends all of it: no later file is read in part.
      left = truncated ? 0 : left - tokens;
      return { path: relPath, text: truncated ? `${text}\n[… the rest of ${relPath} is left out: the instructions budget is spent]` : text, tokens, truncated };
    }
    return null;
  };

  return {
    async forPaths(paths) {
      const found: InstructionFile[] = [];
      for (const folder of [...new Set(paths.flatMap(folderChain))]) {
        if (visited.has(folder) || left <= 0) continue;
        visited.add(folder);
        const file = await loadFolder(folder);
        if (file) found.push(file);
      }
      files.push(...found);
      return found;
    },
    loaded: () => [...files],
  };
}

/** The instructions as a system prompt section; deeper files are more specific and come later. */
export function instructionsSection(files: readonly InstructionFile[]): string {
  if (files.length === 0) return '';
  const sorted = [...files].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  return [
    'Project instructions (from the project\'s instruction files; a file applies to its folder and below, and a deeper file wins where they differ):',
    ...sorted.map((file) => `--- ${file.path} ---\n${file.text}`),
  ].join('\n\n');
}

/** Instructions found while the model works in a new folder, appended to the tool result that led there. */
export function instructionsNote(files: readonly InstructionFile[]): string {
  return files.map((file) => `\n\n[Instructions from ${file.path}, which apply to files under ${posix.dirname(file.path) === '.' ? 'the project' : `${posix.dirname(file.path)}/`}:]\n${file.text}`).join('');
}

/** Paths a task text names: words with a slash or a file extension, links left out (a folder that does not exist has no instructions). */
export function pathsNamedIn(text: string): string[] {
  const words = text.replace(/\b[a-z][a-z+.-]*:\/\/\S+/gi, ' ').match(/[\w@.-]+(?:\/[\w@.-]+)+\/?|\b[\w-]+\.[a-z]{1,5}\b/g) ?? [];
  return [...new Set(words.filter((word) => !word.includes('..')))].slice(0, 50);
}
