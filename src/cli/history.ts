// The prompt's history, persisted per project (one JSON string per line, so multi-line entries survive).
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const keep = 500;

export interface History {
  entries(): readonly string[];
  add(entry: string): Promise<void>;
}

export async function openHistory(file: string): Promise<History> {
  const entries: string[] = [];
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
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  entries.splice(0, Math.max(0, entries.length - keep));
  return {
    entries: () => entries,
    async add(entry) {
      if (!entry.trim() || entries[entries.length - 1] === entry) return;
      entries.push(entry);
      await mkdir(dirname(file), { recursive: true });
      await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    },
  };
}
