// The person's folder-trust answers, kept in their own cadre config folder (never in the project): trusted (with a fingerprint) or never.
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { readJsonLayer } from './config-layers.js';
import type { CadrePaths } from './paths.js';

const answerSchema = z.strictObject({
  decision: z.enum(['trusted', 'never']),
  /** trustFingerprint of the project's settings when the folder was trusted; other values ask again. */
  fingerprint: z.string().optional(),
  at: z.string(),
});

const fileSchema = z.strictObject({
  folders: z.record(z.string(), answerSchema).default({}),
});

export type TrustAnswer = z.infer<typeof answerSchema>;

/** `trusted-folders.json` beside the user's config.json. */
export function trustFile(paths: CadrePaths): string {
  return join(dirname(paths.userConfigFile), 'trusted-folders.json');
}

/** The folder as answers are kept: its real path, so a symlink or `..` names the same folder. */
export async function folderKey(paths: CadrePaths): Promise<string> {
  return realpath(paths.projectDir).catch(() => paths.projectDir);
}

async function readAnswers(file: string): Promise<z.infer<typeof fileSchema>> {
  const values = await readJsonLayer(file);
  if (values === undefined) return { folders: {} };
  const parsed = fileSchema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new CadreError('trust.invalid', `${file} is not a folder-trust file cadre can read: ${parsed.error.issues[0]?.message ?? 'unexpected content'}.`, {
    remedy: `Fix or delete ${file} (it holds only your answers to "Trust this folder?"; cadre asks again without it).`,
    exitCode: exitCodes.usage,
  });
}

/** The person's answer for this project folder, if they gave one. */
export async function rememberedTrust(paths: CadrePaths): Promise<TrustAnswer | undefined> {
  const answers = await readAnswers(trustFile(paths));
  return answers.folders[await folderKey(paths)];
}

/** Keeps the person's answer for this project folder (undefined forgets it), leaving every other folder's as it was. */
export async function rememberTrust(paths: CadrePaths, answer: TrustAnswer | undefined): Promise<void> {
  const file = trustFile(paths);
  const answers = await readAnswers(file);
  const key = await folderKey(paths);
  const folders = { ...answers.folders };
  if (answer === undefined) delete folders[key];
  else folders[key] = answer;
  await writeFileAtomic(file, `${JSON.stringify({ folders }, null, 2)}\n`, { mode: 0o600 });
}
