// The package managers' answers kept across cadre processes, in cadre's data folder: each with the fingerprint of the
// configuration it was given under, so that a changed configuration is never answered from here (host-package-config.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../store/atomic-write.js';
import { resolvePaths } from '../store/paths.js';

const storedAnswer = z.object({ fingerprint: z.string(), value: z.string(), failure: z.string().optional(), at: z.number() });
const storeFile = z.object({ version: z.literal(1), answers: z.record(z.string(), storedAnswer) });
type StoredAnswer = z.infer<typeof storedAnswer>;

/** Enough for every project a person works in; the oldest answers go first. */
const maxAnswers = 64;

/** `<data folder>/cache/package-config.json`, the data folder as `env` names it (CADRE_HOME, XDG_DATA_HOME, HOME). */
export const packageConfigStorePath = (env: NodeJS.ProcessEnv): string => join(resolvePaths({ cwd: '/', env }).dataDir, 'cache', 'package-config.json');

async function readStore(path: string): Promise<Record<string, StoredAnswer>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  if (text === '') return {};
  try {
    const parsed = storeFile.safeParse(JSON.parse(text));
    // A file of another version or a damaged one is only a cache: it is replaced by the next answer.
    return parsed.success ? parsed.data.answers : {};
  } catch {
    return {};
  }
}

/** The answer kept for `key` when it was given under exactly `fingerprint`; undefined otherwise. */
export async function storedPackageAnswer(path: string, key: string, fingerprint: string): Promise<{ value: string; failure?: string } | undefined> {
  const found = (await readStore(path))[key];
  if (found?.fingerprint !== fingerprint) return undefined;
  return { value: found.value, ...(found.failure !== undefined ? { failure: found.failure } : {}) };
}

/** This process's writes of each store, one after the other: answers asked at once would otherwise overwrite each other. */
const writes = new Map<string, Promise<void>>();

/**
 * Keeps `answer` for `key` under `fingerprint`. A failed write (a read-only or full data folder), or one lost to another
 * process writing at the same moment, only costs a next process a question.
 */
export function storePackageAnswer(path: string, key: string, fingerprint: string, answer: { value: string; failure?: string }): Promise<void> {
  const write = async (): Promise<void> => {
    const answers = await readStore(path);
    answers[key] = { fingerprint, value: answer.value, ...(answer.failure !== undefined ? { failure: answer.failure } : {}), at: Date.now() };
    const kept = Object.entries(answers).sort(([, a], [, b]) => b.at - a.at).slice(0, maxAnswers);
    await writeFileAtomic(path, `${JSON.stringify({ version: 1, answers: Object.fromEntries(kept) })}\n`, { mode: 0o600 });
  };
  const next = (writes.get(path) ?? Promise.resolve()).then(write).catch(() => undefined);
  writes.set(path, next);
  return next;
}
