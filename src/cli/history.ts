// The prompt's history, persisted per project (one JSON string per line, so multi-line entries survive).
import { appendFile, readFile } from 'node:fs/promises';
import { ensureCadreFolder } from '../store/project-folder.js';
import { dirname } from 'node:path';

const keep = 500;

export interface History {
  entries(): readonly string[];
  add(entry: string): Promise<void>;
}

/**
 * The history in `file`. It is a convenience: when the file cannot be read or written, the prompt works without it and
 * `warn` is told once.
 */
export async function openHistory(file: string, warn: (text: string) => void = () => undefined): Promise<History> {
  const entries: string[] = [];
  let warned = false;
  const trouble = (error: unknown): void => {
    if (warned) return;
    warned = true;
    warn(`The prompt history (${file}) cannot be ${entries.length ? 'written' : 'used'}: ${error instanceof Error ? error.message : String(error)}. The prompt works without it.`);
  };
  try {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (!line) continue;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === 'string') entries.push(value);
      } catch {
        // A damaged line (say, a write cut short by a crash) is skipped, not fatal.
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') trouble(error);
  }
  entries.splice(0, Math.max(0, entries.length - keep));
  return {
    entries: () => entries,
    async add(entry) {
      if (!entry.trim() || entries[entries.length - 1] === entry) return;
      entries.push(entry);
      try {
        await ensureCadreFolder(dirname(file));
        await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      } catch (error) {
        trouble(error);
      }
    },
  };
}
