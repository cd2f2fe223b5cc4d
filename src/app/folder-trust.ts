// Whether this run uses the project's settings that need trust: --trust, CADRE_TRUST_FOLDER, the remembered answer, or the question.
import { CadreError, exitCodes } from '../errors.js';
import { result, type OutputEvent } from '../output.js';
import { readJsonLayer } from '../store/config-layers.js';
import { describeTrustedKeys, splitProjectLayer, trustFingerprint, type TrustedKey } from '../store/config-trust.js';
import { rememberedTrust, rememberTrust, type TrustAnswer } from '../store/folder-trust.js';
import { resolvePaths, type CadrePaths } from '../store/paths.js';

export type TrustChoice = 'trust' | 'not-now' | 'never';

/** How the run's trust was settled. */
export type TrustDecidedBy = 'flag' | 'env' | 'remembered' | 'answer' | 'never' | 'changed' | 'not-now' | 'not-trusted';

export interface FolderTrust {
  trusted: boolean;
  decidedBy: TrustDecidedBy;
  /** The project's settings that need trust: used when trusted, ignored otherwise (empty: nothing to decide). */
  keys: TrustedKey[];
  /** The fingerprint of those settings as they were judged: loadConfig applies them only while they still match. */
  fingerprint?: string;
}

/** What the person is asked at an interactive start: the settings, and whether they changed since the folder was trusted. */
export interface TrustQuestion {
  folder: string;
  keys: TrustedKey[];
  changedSince?: string;
}

type Env = Record<string, string | undefined>;

/** CADRE_TRUST_FOLDER: 1/true/yes/on trusts this run, 0/false/no/off does not; unset leaves it to the remembered answer. */
export const trustVariable = 'CADRE_TRUST_FOLDER';

function trustFromEnv(env: Env): boolean | undefined {
  const raw = env[trustVariable]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new CadreError('config.invalid', `Invalid ${trustVariable}: "${env[trustVariable]}" is not 1, true, yes, on, 0, false, no or off.`, {
    remedy: `Set ${trustVariable}=1 to trust the project's .cadre/config.json for this run, ${trustVariable}=0 to ignore its settings that need trust, or unset it.`,
    exitCode: exitCodes.usage,
  });
}

/**
 * Settles the folder's trust for this run. Nothing to decide when the project's config sets no key that needs trust.
 * Otherwise, in order: `flag` (--trust), CADRE_TRUST_FOLDER, the remembered answer (a trust whose settings changed
 * since does not count), and, with `ask` (interactive starts only), the question, whose trust or never is remembered.
 */
export async function decideFolderTrust(options: { cwd: string; env: Env; flag?: boolean; ask?: (question: TrustQuestion) => Promise<TrustChoice> }): Promise<FolderTrust> {
  const paths = resolvePaths({ cwd: options.cwd, env: options.env });
  const values = await readJsonLayer(paths.projectConfigFile);
  const keys = values === undefined ? [] : splitProjectLayer(values).waiting;
  if (values === undefined || keys.length === 0) return { trusted: false, decidedBy: 'not-trusted', keys: [] };
  const fingerprint = trustFingerprint(values);
  const trustedBy = (decidedBy: TrustDecidedBy): FolderTrust => ({ trusted: true, decidedBy, keys, fingerprint });
  const notTrusted = (decidedBy: TrustDecidedBy): FolderTrust => ({ trusted: false, decidedBy, keys });

  if (options.flag) return trustedBy('flag');
  const fromEnv = trustFromEnv(options.env);
  if (fromEnv !== undefined) return fromEnv ? trustedBy('env') : notTrusted('env');
  const remembered = await rememberedTrust(paths);
  if (remembered?.decision === 'never') return notTrusted('never');
  if (remembered?.decision === 'trusted' && remembered.fingerprint === fingerprint) return trustedBy('remembered');
  const changed = remembered?.decision === 'trusted';
  if (!options.ask) return notTrusted(changed ? 'changed' : 'not-trusted');
  const choice = await options.ask({ folder: paths.projectDir, keys, ...(changed ? { changedSince: remembered.at } : {}) });
  if (choice === 'trust') {
    await rememberTrust(paths, { decision: 'trusted', fingerprint, at: new Date().toISOString() });
    return trustedBy('answer');
  }
  if (choice === 'never') {
    await rememberTrust(paths, { decision: 'never', at: new Date().toISOString() });
    return notTrusted('never');
  }
  return notTrusted('not-now');
}

/** What /trust shows and changes: the project's settings that need trust now, and the answer remembered for the folder. */
export async function folderTrustState(options: { cwd: string; env: Env }): Promise<{ paths: CadrePaths; keys: TrustedKey[]; fingerprint: string; remembered: TrustAnswer | undefined }> {
  const paths = resolvePaths({ cwd: options.cwd, env: options.env });
  const values = (await readJsonLayer(paths.projectConfigFile)) ?? {};
  return { paths, keys: splitProjectLayer(values).waiting, fingerprint: trustFingerprint(values), remembered: await rememberedTrust(paths) };
}

/** /trust yes, no or never: keeps the answer for the folder (no forgets it, so the next interactive start asks). */
export async function answerFolderTrust(options: { cwd: string; env: Env; answer: 'yes' | 'no' | 'never' }): Promise<{ paths: CadrePaths; keys: TrustedKey[] }> {
  const { paths, keys, fingerprint } = await folderTrustState(options);
  const at = new Date().toISOString();
  await rememberTrust(paths, options.answer === 'no' ? undefined : options.answer === 'yes' ? { decision: 'trusted', fingerprint, at } : { decision: 'never', at });
  return { paths, keys };
}

export const howToTrust = `trust the folder: /trust yes at the prompt (or answer the question at the next interactive start); for one run, --trust or ${trustVariable}=1 (CI)`;

const trustedBecause: Partial<Record<TrustDecidedBy, string>> = {
  flag: 'by --trust', env: `by ${trustVariable}`, answer: 'by your answer', remembered: 'as you chose before',
};
const untrustedBecause: Partial<Record<TrustDecidedBy, string>> = {
  never: 'you chose never to trust this folder', changed: 'they changed since you trusted this folder', env: `${trustVariable} says not to trust it`,
};

/** The one note a run gives about the folder's trust (none when the project's config sets nothing that needs it). */
export function folderTrustNote(trust: FolderTrust, paths: CadrePaths, ignored: readonly TrustedKey[]): OutputEvent | undefined {
  if (trust.keys.length === 0 && ignored.length === 0) return undefined;
  const file = paths.projectConfigFile;
  const data = { folder: paths.projectDir, file, trusted: trust.trusted, decidedBy: trust.decidedBy, applied: trust.trusted ? trust.keys : [], ignored };
  if (trust.trusted && ignored.length === 0) {
    return result('folder.trust', data, `This folder is trusted (${trustedBecause[trust.decidedBy] ?? 'by you'}): cadre uses these settings from ${file}: ${describeTrustedKeys(trust.keys)}.`);
  }
  const why = trust.trusted ? 'they changed while cadre started' : (untrustedBecause[trust.decidedBy] ?? 'the folder is not trusted');
  return result('folder.trust', { ...data, trusted: false, because: why, remedy: `To use them, ${howToTrust}.` }, `cadre ignored these settings from ${file}, because ${why}: ${describeTrustedKeys(ignored)}. To use them, ${howToTrust}.`);
}
