// The checks every file change passes, on the host and in the container: no folder or binary file modified, nothing over 100 KB written.
import { formatBytes, isBinary, maxFileBytes } from './limits.js';
import { ToolRefusal, type ChangeNote, type ToolFiles } from './tool.js';

/** The current content of a file that is about to be modified (null: it does not exist yet); refuses folders and binary files. */
export async function modifiableContent(files: ToolFiles, relPath: string): Promise<string | null> {
  if (await files.isFolder(relPath)) throw new ToolRefusal(`${relPath} is a folder, not a file`);
  const current = await files.read(relPath);
  if (current === null) return null;
  if (isBinary(current)) throw new ToolRefusal(`${relPath} is a binary file, and binary files cannot be modified`);
  return current.toString('utf8');
}

/** Writes (on the host: stages) new content after the size limit check. */
export async function writeContent(files: ToolFiles, relPath: string, content: string, note: ChangeNote): Promise<void> {
  const size = Buffer.byteLength(content, 'utf8');
  if (size > maxFileBytes) throw new ToolRefusal(`the new ${relPath} would be ${formatBytes(size)}; files over 100 KB cannot be written`);
  await files.write(relPath, content, note);
}

export const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

/** How a change is told: staged on the host (written when the plan is approved), done in the container. */
export function toldChange(files: ToolFiles, verb: 'create' | 'rewrite' | 'edit', what: { output: string; display: string }): { output: string; display: string } {
  const done = { create: 'created', rewrite: 'rewrote', edit: 'edited' }[verb];
  return files.staging
    ? { output: `Staged: ${verb} ${what.output}. It will be written when the user approves the plan.`, display: `staged ${verb} ${what.display}` }
    : { output: `${done} ${what.output}.`, display: `${done} ${what.display}` };
}
