// The host-only audit HMAC key: 32 random bytes in keysDir/audit.key, file mode 0600 in a 0700 folder.
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CadreError } from '../errors.js';
import { syncDir } from './atomic-write.js';

export const auditKeyLength = 32;

/**
 * Reads the audit key, creating it on first use unless `create` is false (verification
 * must not invent a key: audit.key-missing). Refuses a key file that group or others may
 * access, or that does not hold exactly 32 bytes.
 */
export async function loadAuditKey(keysDir: string, options: { create?: boolean } = {}): Promise<Buffer> {
  const file = join(keysDir, 'audit.key');
  if (options.create === false) {
    await stat(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      throw new CadreError('audit.key-missing', `The audit key ${file} does not exist, so no log can be verified.`, {
        remedy: 'Restore the key from a backup, or point CADRE_HOME at the data folder that holds it.',
      });
    });
  } else {
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    await chmod(keysDir, 0o700);
    await createKeyIfMissing(file, keysDir);
  }
  const info = await stat(file);
  if ((info.mode & 0o077) !== 0) {
    throw new CadreError('audit.key-insecure', `The audit key ${file} has mode ${(info.mode & 0o777).toString(8)}; it must be readable by its owner only.`, {
      remedy: `Run: chmod 600 ${file}`,
    });
  }
  const key = await readFile(file);
  if (key.length !== auditKeyLength) {
    throw new CadreError('audit.key-invalid', `The audit key ${file} holds ${key.length} bytes instead of ${auditKeyLength}.`, {
      remedy: 'Restore the key from a backup; without it the existing logs cannot be verified. Removing it makes cadre create a new one.',
    });
  }
  return key;
}

/**
 * A host-only key of 32 random bytes in keysDir/`name`, created on first use (mode 0600 in a 0700 folder); one that is not
 * 32 bytes is replaced. For keys whose loss costs nothing but a recomputation (the analysis caches' key).
 */
export async function loadRecomputableKey(keysDir: string, name: string): Promise<Buffer> {
  const file = join(keysDir, name);
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  await createKeyIfMissing(file, keysDir);
  const key = await readFile(file);
  if (key.length === auditKeyLength) return key;
  await rm(file, { force: true });
  await createKeyIfMissing(file, keysDir);
  return readFile(file);
}

// Written to a temporary file and hard-linked into place, so a concurrent reader never sees a partial key.
async function createKeyIfMissing(file: string, keysDir: string): Promise<void> {
  try {
    await stat(file);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(randomBytes(auditKeyLength));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(temp, { force: true });
  }
  await syncDir(keysDir);
}
