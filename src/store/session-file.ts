// The saved-session file format (schema version 1) and reading one file into a typed value or a clear error.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CadreError } from '../errors.js';

export const sessionSchemaVersion = 1;

export const transcriptEntrySchema = z.looseObject({
  role: z.enum(['user', 'agent', 'exec', 'system', 'tool']),
  text: z.string(),
  /** Epoch milliseconds (as the session actor keeps it) or an ISO date. */
  at: z.union([z.number(), z.string()]).optional(),
  agent: z.string().optional(),
});

export const sessionFileSchema = z.strictObject({
  schemaVersion: z.literal(sessionSchemaVersion),
  name: z.string(),
  savedAt: z.iso.datetime(),
  cadreVersion: z.string(),
  /** The persisted XState snapshot of the session actor (`actor.getPersistedSnapshot()`): the whole session, agent memory included. */
  snapshot: z.unknown(),
  // Sessions saved before the snapshot held everything carried these beside it; they are still read.
  transcript: z.array(transcriptEntrySchema).optional(),
  usage: z.looseObject({
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
  }).optional(),
  mode: z.enum(['approve', 'auto']).optional(),
  agent: z.enum(['universal-agent', 'vm-agent']).optional(),
  agentState: z.unknown().optional(),
});

export type SessionFile = z.infer<typeof sessionFileSchema>;
/** What callers hand to save: the session actor's snapshot and the version that wrote it (nothing beside the snapshot). */
export type SessionData = Pick<SessionFile, 'cadreVersion' | 'snapshot'>;

export type SessionRead = { ok: true; data: SessionFile } | { ok: false; missing: boolean; error: CadreError };

/** Reads and validates a session file; every failure is a value, never a throw. */
export async function readSessionFile(file: string): Promise<SessionRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    // ENOTDIR: a file stands where the sessions folder should be, so no session file can be there.
    const missing = ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');
    return { ok: false, missing, error: corrupt(file, `it cannot be read (${(error as Error).message})`, error) };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, missing: false, error: corrupt(file, `it is not valid JSON (${(error as Error).message})`, error) };
  }
  const version = typeof raw === 'object' && raw !== null ? (raw as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (typeof version === 'number' && version > sessionSchemaVersion) {
    const error = new CadreError(
      'session.newer-version',
      `Session file ${file} has schema version ${version}; this cadre reads version ${sessionSchemaVersion}. The file was left untouched.`,
      { remedy: 'Open it with the newer cadre that wrote it, or upgrade cadre.' },
    );
    return { ok: false, missing: false, error };
  }
  const parsed = sessionFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.join('.') || '(top level)'}: ${issue.message}`;
    return { ok: false, missing: false, error: corrupt(file, `it does not match the session format${where}`, parsed.error) };
  }
  return { ok: true, data: parsed.data };
}

function corrupt(file: string, why: string, cause: unknown): CadreError {
  return new CadreError('session.corrupt', `Session file ${file} is unusable: ${why}. The file was left untouched.`, {
    remedy: 'Move it aside or delete it; save under another name meanwhile.',
    cause,
  });
}
