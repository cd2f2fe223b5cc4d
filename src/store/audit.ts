// The audit trail writer: one JSONL log per session, records redacted, hash-chained, HMAC'd, appended with fsync.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CadreError } from '../errors.js';
import { openLiveMarker } from './audit-live.js';
import { checkpointSignature, checkpointType, genesisHash, sealRecord, type AuditRecord } from './audit-record.js';
import { scanAuditText } from './audit-verify.js';
import { resolvePaths } from './paths.js';
import { redactedJsonValue } from './redact.js';

export { formatAuditForPeople } from './audit-format.js';

export interface AuditWriter {
  file: string;
  /** Redacts `data`, then appends one record; resolves once it is on disk. Calls are written in call order. */
  append(type: string, data: unknown): Promise<AuditRecord>;
  /** Appends the signed checkpoint, closes the file and removes the live marker. */
  close(): Promise<AuditRecord>;
}

/**
 * A new audit session id, sortable by time to the millisecond: `20261121T165531.123Z-3f9a1c`. Two sessions started in the
 * same second (a script running cadre twice) sort in the order they started; with seconds only, their random suffixes
 * ordered them and `cadre audit show` could show the earlier one as the newest.
 */
export function newAuditSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Orders logs by name, which is their start time. Ids from before they carried milliseconds
 * (`20261121T165531Z-3f9a1c`) sort as the second's first millisecond, so the log of the session an upgrade started in the
 * same second (`…165531.906Z-…`) counts as the newer one (by name alone `.` sorts before `Z`).
 */
function byStart(a: string, b: string): number {
  const left = startKey(a);
  const right = startKey(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function startKey(name: string): string {
  return name.replace(/^(\d{8}T\d{6})Z-/, '$1.000Z-');
}

/** Logs live one per session: `<auditDir>/<session>.jsonl`. */
export function auditFileFor(auditDir: string, session: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(session) || session.startsWith('.')) {
    throw new Error(`invalid audit session id: ${JSON.stringify(session)}`);
  }
  return join(auditDir, `${session}.jsonl`);
}

/**
 * The log of `session`, or without one the newest log in the audit folder. Throws
 * audit.no-log when there is none yet.
 */
export function currentAuditFile({ cwd, env, session }: { cwd: string; env: Record<string, string | undefined>; session?: string }): string {
  const { auditDir } = resolvePaths({ cwd, env });
  if (session !== undefined) return auditFileFor(auditDir, session);
  let names: string[] = [];
  try {
    names = readdirSync(auditDir).filter((name) => name.endsWith('.jsonl')).sort(byStart);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const newest = names.at(-1);
  if (newest === undefined) {
    throw new CadreError('audit.no-log', `There is no audit log in ${auditDir} yet.`, {
      remedy: 'Run a cadre session first; every session writes its own log there.',
    });
  }
  return join(auditDir, newest);
}

/**
 * Opens `file` for appending. A new or empty file starts the chain at 64 zeros; an
 * existing log that verifies and has no checkpoint is continued; a sealed or broken one
 * is refused (audit.log-unusable).
 */
export async function createAuditWriter({ file, key, session }: { file: string; key: Uint8Array; session: string }): Promise<AuditWriter> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  let seq = 0;
  let prev = genesisHash;
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  if (existing !== '') {
    const scan = scanAuditText(existing, key);
    if (!scan.ok || scan.sealed || scan.session !== session) {
      const why = !scan.ok ? `record ${scan.seq} is not intact (${scan.reason})` : scan.sealed ? 'it already ends with a checkpoint' : 'it belongs to another session';
      throw new CadreError('audit.log-unusable', `Cannot append to the audit log ${file}: ${why}.`, {
        remedy: 'Start a new session (each session writes its own log); keep this file as it is.',
      });
    }
    seq = scan.count;
    prev = scan.lastHash;
  }
  // Opened in synchronous mode: each write reaches the disk before it resolves, as a write and an fsync did, in one call.
  const handle: FileHandle = await open(file, 'as', 0o600);
  const marker = await openLiveMarker(file, key, { startedAt: new Date().toISOString(), count: seq, lastHash: prev }).catch(async (error: unknown) => {
    // No writer without its marker: the log's handle is not left open behind the error.
    await handle.close();
    throw error;
  });
  let failure: unknown;
  let closed = false;
  // Records are redacted and stamped as they are appended (in call order), and sealed into the chain and written in
  // batches: every record waiting when a write starts is sealed in one pass and goes in one synchronous write, followed by
  // one marker update. Under a burst (a gateway records every model call) the trail keeps up instead of queueing one disk
  // write per record, and the sealing runs as one loop rather than between the calls; what a crash can lose is the batch
  // being written, not a backlog.
  type Pending = { type: string; ts: string; data: unknown; checkpoint: boolean; done: (error: unknown, record?: AuditRecord) => void };
  let batch: Pending[] = [];
  let writing: Promise<void> | undefined;

  const refused = (): CadreError => new CadreError('audit.write-failed', `The audit log ${file} could not be written; later records are refused.`, { cause: failure });

  const seal = (entry: Pending): { record: AuditRecord; line: string } => {
    // The checkpoint signs the chain as it stands when it is sealed, after every record appended before it.
    const data = entry.checkpoint
      ? redactedJsonValue({ count: seq, lastHash: prev, signature: checkpointSignature(key, seq, prev) })
      : entry.data;
    const fields = { seq: seq + 1, ts: entry.ts, session, type: entry.type, prev };
    const { hash, hmac, line } = sealRecord(key, fields, data);
    seq = fields.seq;
    prev = hash;
    return { record: { seq: fields.seq, ts: fields.ts, session, type: entry.type, data, prev: fields.prev, hash, hmac }, line };
  };

  const writeBatches = async (): Promise<void> => {
    while (batch.length > 0) {
      const taken = batch;
      batch = [];
      const records: AuditRecord[] = [];
      try {
        if (failure !== undefined) throw refused();
        let text = '';
        for (const entry of taken) {
          const { record, line } = seal(entry);
          records.push(record);
          text += line;
        }
        const last = records.at(-1)!;
        await handle.write(text);
        if (last.type !== checkpointType) await marker.update({ count: last.seq, lastHash: last.hash });
      } catch (error) {
        failure ??= error;
        const failed = error instanceof CadreError ? error : new CadreError('audit.write-failed', `Writing the audit log ${file} failed: ${(error as Error).message}`, {
          remedy: 'Check free disk space and the permissions of the audit folder.',
          cause: error,
        });
        for (const entry of taken) entry.done(failed);
        continue;
      }
      taken.forEach((entry, index) => entry.done(undefined, records[index]));
    }
    writing = undefined;
  };

  const write = (type: string, data: unknown, checkpoint = false): Promise<AuditRecord> => {
    if (failure !== undefined) return Promise.reject(refused());
    let clean: unknown;
    try {
      clean = checkpoint ? undefined : redactedJsonValue(data ?? null);
    } catch (error) {
      return Promise.reject(error);
    }
    const ts = new Date().toISOString();
    return new Promise<AuditRecord>((resolve, reject) => {
      batch.push({ type, ts, data: clean, checkpoint, done: (error, record) => (error === undefined ? resolve(record!) : reject(error)) });
      // Started after the current task, so the records appended with this one go in the same write.
      writing ??= Promise.resolve().then(writeBatches);
    });
  };

  return {
    file,
    append(type, data) {
      if (closed) return Promise.reject(new Error(`audit writer for ${file} is already closed`));
      return write(type, data);
    },
    async close() {
      if (closed) throw new Error(`audit writer for ${file} is already closed`);
      closed = true;
      try {
        const record = await write(checkpointType, undefined, true);
        await marker.remove();
        return record;
      } finally {
        await writing;
        await marker.release();
        await handle.close();
      }
    },
  };
}
