// Which Node the project asks for (package.json's engines.node, .nvmrc, .node-version) when the running one does not fit it.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';

export interface NodeMismatch {
  /** The file that asks, relative to the project. */
  file: string;
  /** What it asks for, as written there (cut to 40 characters: the file is the project's, not cadre's). */
  wants: string;
  running: string;
}

/** The file's first 4 KB as text, or undefined when it is absent or unreadable (a repository's file may be anything). */
async function head(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** package.json's engines.node, when it is a range semver understands (the file is read whole: it is JSON). */
async function enginesRange(cwd: string): Promise<string | undefined> {
  const handle = await open(join(cwd, 'package.json'), 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    if ((await handle.stat()).size > 1_000_000) return undefined;
    const parsed: unknown = JSON.parse(await handle.readFile('utf8'));
    const node = (parsed as { engines?: { node?: unknown } } | null)?.engines?.node;
    return typeof node === 'string' && semver.validRange(node) ? node : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The first of engines.node, .nvmrc and .node-version that the running Node does not satisfy. A version file's number
 * is taken as its major (nvm use 22 and 22.21.0 both mean Node 22 here); aliases such as lts/* or node say nothing.
 */
export async function nodeVersionMismatch(cwd: string, running: string = process.versions.node): Promise<NodeMismatch | undefined> {
  const range = await enginesRange(cwd);
  if (range && !semver.satisfies(running, range, { includePrerelease: true })) return { file: 'package.json (engines.node)', wants: range.slice(0, 40), running };
  for (const file of ['.nvmrc', '.node-version']) {
    const text = (await head(join(cwd, file)))?.split('\n')[0]?.trim();
    const wanted = text ? /^v?(\d+)(?:\.\d+){0,2}$/.exec(text) : null;
    if (wanted && Number(wanted[1]) !== semver.major(running)) return { file, wants: (text ?? '').slice(0, 40), running };
  }
  return undefined;
}

/** The warning: what the project asks, what runs, and what to do. */
export function describeNodeMismatch(mismatch: NodeMismatch): string {
  return `This project asks for Node ${mismatch.wants} (${mismatch.file}); this is Node ${mismatch.running}, which runs its checks and commands here, so their results may differ from the project's own. Switch first (nvm use, fnm use, volta) and start cadre again.`;
}
