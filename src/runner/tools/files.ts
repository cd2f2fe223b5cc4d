// Writing workspace files without following a symbolic link planted at the last step, within the 100 KB limit.
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { formatBytes, maxFileBytes } from '../../agents/tools/limits.js';
import { RunnerToolRefusal } from './tool.js';

/** Writes `content` to the already confined real path `file`; refuses files over 100 KB. */
export async function writeConfined(file: { real: string; relative: string }, content: string): Promise<void> {
  const size = Buffer.byteLength(content, 'utf8');
  if (size > maxFileBytes) throw new RunnerToolRefusal(`the content is ${formatBytes(size)}; files over 100 KB are not written by the agent`);
  await mkdir(path.dirname(file.real), { recursive: true });
  // O_NOFOLLOW: a link swapped in after the policy check is refused rather than written through.
  const handle = await open(file.real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644).catch((error: NodeJS.ErrnoException) => {
    throw new RunnerToolRefusal(`cannot write ${file.relative} (${error.code ?? error.message})`);
  });
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

export const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
