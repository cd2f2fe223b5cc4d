// The staged file view: the project as the plan would leave it; writes accumulate here, never on disk.
import { join } from 'node:path';
import { readRegularFile, tooBig } from './read-regular.js';
import type { ReadOptions } from './tool.js';

export interface StagedChange {
  path: string;
  /** Disk content before the plan; null when the file does not exist. */
  before: string | null;
  /** Content after the plan; null when the plan deletes the file. */
  after: string | null;
}

export interface StagedView {
  readonly root: string;
  /** Current content (staged, else disk); null when the file does not exist or is staged for deletion. */
  read(relPath: string, options?: ReadOptions): Promise<Buffer | null>;
  /** Stages new content (or a deletion with null). */
  stage(relPath: string, content: string | null): Promise<void>;
  /** Paths staged, with their fate: content or null for deleted. */
  staged(): ReadonlyMap<string, string | null>;
  /** Real changes against the disk, in the order they were first staged. */
  changes(): Promise<StagedChange[]>;
}


export function createStagedView(root: string): StagedView {
  const staged = new Map<string, string | null>();
  return {
    root,
    async read(relPath, options) {
      if (staged.has(relPath)) {
        const content = staged.get(relPath);
        if (content == null) return null;
        const bytes = Buffer.from(content, 'utf8');
        if (options?.maxBytes !== undefined && bytes.length > options.maxBytes) throw tooBig(relPath, bytes.length, options.maxBytes);
        return bytes;
      }
      return readRegularFile(join(root, relPath), relPath, options);
    },
    async stage(relPath, content) {
      // Re-staging keeps the first position, so steps stay in the order the work was done.
      staged.set(relPath, content);
    },
    staged: () => staged,
    async changes() {
      const out: StagedChange[] = [];
      for (const [path, after] of staged) {
        const disk = await readRegularFile(join(root, path), path);
        const before = disk === null ? null : disk.toString('utf8');
        if (before !== after) out.push({ path, before, after });
      }
      return out;
    },
  };
}
