// This installation's identity: a random id kept in the cadre home, put on every container cadre creates so it knows its own.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CadreError } from '../errors.js';

export interface Installation {
  /** Random, stable for the life of the cadre home. */
  id: string;
  /** The cadre home (data folder) it lives in, named when cadre says whose a container is. */
  home: string;
}

const fileName = 'installation.json';
const idPattern = /^[0-9a-f]{32}$/;

async function readId(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  const id = (JSON.parse(text) as { id?: unknown }).id;
  if (typeof id !== 'string' || !idPattern.test(id)) throw new Error(`no valid id in ${file}`);
  return id;
}

/**
 * The installation of the cadre home `dataDir`, created on first use. Two processes starting at once agree:
 * the file is created exclusively, and the loser reads the winner's.
 */
export async function loadInstallation(dataDir: string): Promise<Installation> {
  const file = join(dataDir, fileName);
  try {
    const existing = await readId(file);
    if (existing) return { id: existing, home: dataDir };
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const id = randomBytes(16).toString('hex');
    // Written whole under a temporary name, then linked into place: link fails when the name exists, so the first writer wins whole.
    const temp = join(dataDir, `.${fileName}.${process.pid}.${randomBytes(4).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify({ id, createdAt: new Date().toISOString() })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const won = await link(temp, file).then(() => true, (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    }).finally(() => unlink(temp).catch(() => undefined));
    return { id: won ? id : ((await readId(file)) ?? id), home: dataDir };
  } catch (error) {
    throw new CadreError('installation.unreadable', `cadre cannot read or create its installation file ${file}: ${error instanceof Error ? error.message : String(error)}.`, {
      remedy: `check that ${dataDir} is writable by you; if ${fileName} was edited, restore it (containers of this installation carry its id)`,
      cause: error,
    });
  }
}
