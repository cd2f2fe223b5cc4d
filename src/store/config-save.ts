// Writes settings a command changed (/vm-config's defaults) into the user's own config file, keeping every other key.
import { chmod, stat } from 'node:fs/promises';
import { CadreError, exitCodes } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { mergeLayer, readJsonLayer, type Json } from './config-layers.js';
import { configSchema } from './config-schema.js';

/**
 * Merges `values` (a partial config in the files' shape) into the user config `file` and writes it atomically, with the mode
 * the file had (0600 for a new one: it may hold keys). A file that does not parse is left as it is: the change is refused,
 * naming the file, rather than written over what the person wrote.
 */
export async function saveUserConfigValues(file: string, values: Json): Promise<void> {
  const current = (await readJsonLayer(file)) ?? {};
  const next = mergeLayer(current, values, []);
  const checked = configSchema.safeParse(next);
  if (!checked.success) {
    throw new CadreError('config.not-saved', `Could not save the change in ${file}: the file would not be a valid config (${checked.error.issues[0]?.message ?? 'invalid'}).`, {
      remedy: `Fix ${file} (\`cadre config\` lists every key), then run the command again; the change applies to this session meanwhile.`,
      exitCode: exitCodes.usage,
    });
  }
  const mode = await stat(file).then((info) => info.mode & 0o777, () => 0o600);
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { mode });
  await chmod(file, mode);
}
