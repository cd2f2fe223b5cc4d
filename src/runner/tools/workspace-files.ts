// The container's workspace for the tool kernel: every path confined by the path policy, writes made at once and never through a symbolic link.
import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '../../agents/tools/read-regular.js';
import { ToolRefusal, type ReadOptions, type ToolFiles } from '../../agents/tools/tool.js';
import { walkProject } from '../../agents/tools/walk.js';
import { confine } from './confine.js';

async function readOrNull(workspace: string, relPath: string, options?: ReadOptions): Promise<Buffer | null> {
  try {
    return await readRegularFile(path.join(workspace, relPath), relPath, options);
  } catch (error) {
    if (error instanceof ToolRefusal) throw error;
    throw new ToolRefusal(`cannot read ${relPath} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** The workspace at `workspace` (its real path: /workspace in the container, a temp folder in tests). */
export function createWorkspaceFiles(workspace: string): ToolFiles {
  const real = (relPath: string) => path.join(workspace, relPath);
  return {
    root: workspace,
    staging: false,
    confine: (candidate, access) => confine(workspace, candidate, access).relative,
    read: (relPath, options) => readOrNull(workspace, relPath, options),
    isFolder: async (relPath) => (await stat(real(relPath)).catch(() => null))?.isDirectory() ?? false,
    async write(relPath, content) {
      await mkdir(path.dirname(real(relPath)), { recursive: true });
      // O_NOFOLLOW: a link swapped in after the policy check is refused rather than written through.
      const handle = await open(real(relPath), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644).catch((error: NodeJS.ErrnoException) => {
        throw new ToolRefusal(`cannot write ${relPath} (${error.code ?? error.message})`);
      });
      try {
        await handle.writeFile(content, 'utf8');
      } finally {
        await handle.close();
      }
    },
    async list(relDir) {
      const walked = await walkProject(workspace, relDir === '.' ? '' : relDir);
      return { files: walked.files.map((file) => ({ path: file, staged: false })), truncated: walked.truncated, hidden: 0 };
    },
  };
}
