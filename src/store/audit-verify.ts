// Verifies an audit log: sequence, hash chain, HMACs, the final checkpoint; names the first bad record.
import { readFile } from 'node:fs/promises';
import { loadAuditKey } from './audit-key.js';
import { crashedWriter, liveWriter, readAgain, type Rereads } from './audit-live.js';
import { resolvePaths } from './paths.js';
import { checkpointSignature, checkpointType, genesisHash, recordHash, hmacHex, sameDigest, type AuditRecord } from './audit-record.js';

export type AuditVerdict =
  | { ok: true; count: number; /** No checkpoint yet, and the process writing the log is alive. */ live: boolean }
  | { ok: false; seq: number; line: number; reason: string }
  /** No checkpoint because its cadre (pid) died: every record up to `count` is intact; `at` is the last one's time. */
  | { ok: false; crashed: true; count: number; at: string; pid: number; /** The final line was cut mid-record by the crash. */ partialLine: boolean };

/** The chain state after reading a log's lines, or the first problem found. */
export type AuditScan =
  | { ok: true; count: number; lastHash: string; sealed: boolean; session: string | undefined }
  | { ok: false; seq: number; line: number; reason: string };

/**
 * Checks every line of `text`: each record has the next seq, `prev` equal to the previous
 * hash, a hash that matches its content, and an HMAC made with `key`; a checkpoint must
 * match the records before it and be last.
 */
export function scanAuditText(text: string, key: Uint8Array): AuditScan {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let prev = genesisHash;
  let session: string | undefined;
  let sealed = false;
  for (const [index, line] of lines.entries()) {
    const seq = index + 1;
    const fail = (reason: string): AuditScan => ({ ok: false, seq, line: seq, reason });
    if (sealed) return fail('a record follows the checkpoint: records were appended after the session ended');
    let record: AuditRecord;
    try {
      record = JSON.parse(line) as AuditRecord;
    } catch {
      return fail('the line is not valid JSON: the record was edited or cut');
    }
    if (typeof record !== 'object' || record === null) return fail('the line is not a record: it was edited');
    if (record.seq !== seq) {
      return fail(`expected seq ${seq} but found ${String(record.seq)}: a record was deleted, inserted or moved`);
    }
    if (record.prev !== prev) return fail('prev does not match the previous record\'s hash: the chain is broken');
    session ??= record.session;
    if (record.session !== session) return fail(`session "${String(record.session)}" differs from "${session}": records from another log`);
    if (typeof record.hash !== 'string' || !sameDigest(record.hash, recordHash(record))) {
      return fail('the hash does not match the record: it was edited');
    }
    if (typeof record.hmac !== 'string' || !sameDigest(record.hmac, hmacHex(key, record.hash))) {
      return fail('the HMAC does not match: the record was forged or the key is not the one that wrote this log');
    }
    if (record.type === checkpointType) {
      const data = record.data as { count?: unknown; lastHash?: unknown; signature?: unknown } | null;
      if (data?.count !== seq - 1 || data.lastHash !== prev) return fail('the checkpoint does not match the records before it');
      if (typeof data.signature !== 'string' || !sameDigest(data.signature, checkpointSignature(key, seq - 1, prev))) {
        return fail('the checkpoint signature does not match');
      }
      sealed = true;
    }
    prev = record.hash;
  }
  return { ok: true, count: lines.length, lastHash: prev, sealed, session };
}

/** Reads of a live log whose last line is not whole yet, before it is checked as it stands: at once, then with a wait between. */
const tailRereads: Rereads = { immediate: 5, waited: 50, waitMs: 20 };

/**
 * The log's text. The writer appends a batch of records in one write, and a read can meet that write in part (the kernel
 * copies it page by page): while a live writer is appending, a last line without its newline is read again until it is
 * whole, for about a second; a tail that stays cut is then checked as it stands, and reported.
 */
async function readLog(file: string, live: boolean): Promise<string> {
  for (let reread = 0; ; reread += 1) {
    const text = await readFile(file, 'utf8');
    if (!live || text === '' || text.endsWith('\n') || !(await readAgain(reread, tailRereads))) return text;
  }
}

/**
 * Verifies a log file. A log must end with a checkpoint, unless a live marker signed with
 * the key names a process that is still running (the session is in progress). A log
 * without a checkpoint whose signed marker names a process that is gone ended by a crash
 * (crashVerdict); one without either was truncated.
 */
export async function verifyAuditFile(file: string, key: Uint8Array): Promise<AuditVerdict> {
  // The head is read before the log: the writer records a head only once the records up to it are written, so a log read
  // after it holds at least that head unless its end was cut (read the other way round, records written in between made
  // an intact live log look cut).
  const writer = await liveWriter(file, key);
  const text = await readLog(file, writer !== undefined);
  const scan = scanAuditText(text, key);
  if (!scan.ok) return (writer === undefined ? await crashVerdict(file, text, key) : undefined) ?? scan;
  if (scan.sealed) return { ok: true, count: scan.count, live: false };
  if (writer !== undefined) {
    // The writer records its head apart after every record: a live log shorter than that head was cut.
    if (scan.count < writer.count) {
      return { ok: false, seq: scan.count + 1, line: scan.count + 1, reason: `the log ends after seq ${scan.count}, but cadre (pid ${writer.pid}) has written ${writer.count} records to it: its end was cut` };
    }
    if (scan.count === writer.count && scan.lastHash !== writer.lastHash) {
      return { ok: false, seq: scan.count, line: scan.count, reason: 'the last record is not the one cadre wrote: its end was replaced' };
    }
    return { ok: true, count: scan.count, live: true };
  }
  const crash = await crashVerdict(file, text, key);
  if (crash) return crash;
  const seq = scan.count + 1;
  return {
    ok: false,
    seq,
    line: seq,
    reason: `the log ends after seq ${scan.count} without a checkpoint and no live cadre is writing it: records were truncated, or the session crashed`,
  };
}

/**
 * The verdict for a log whose cadre crashed, when cadre recorded the crash (its signed live marker names a process that is
 * gone) and the log bears it out: every record intact, none sealed, at least as many as the marker's head and the record at
 * that head the one it names. Only a final line cut mid-record (no newline, not JSON) is excused, as the write the crash
 * interrupted. Anything else, or no crash on record, is left to be reported as tampering.
 */
async function crashVerdict(file: string, text: string, key: Uint8Array): Promise<AuditVerdict | undefined> {
  const crashed = await crashedWriter(file, key);
  if (crashed === undefined) return undefined;
  const cut = text !== '' && !text.endsWith('\n') ? text.lastIndexOf('\n') + 1 : text.length;
  const partialLine = cut < text.length && !parsesAsJson(text.slice(cut));
  const whole = partialLine ? text.slice(0, cut) : text;
  const scan = scanAuditText(whole, key);
  if (!scan.ok || scan.sealed || scan.count < crashed.count) return undefined;
  const lines = whole.split('\n').filter((line) => line !== '');
  const atHead = scanAuditText(lines.slice(0, crashed.count).map((line) => `${line}\n`).join(''), key);
  if (!atHead.ok || atHead.lastHash !== crashed.lastHash) return undefined;
  const last = lines.at(-1);
  const at = last === undefined ? crashed.startedAt : String((JSON.parse(last) as { ts?: unknown }).ts);
  return { ok: false, crashed: true, count: scan.count, at, pid: crashed.pid, partialLine };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Verifies `file` with the host's audit key (found through CADRE_HOME or the XDG data folder; never created here). */
export async function verifyAuditAt(file: string, { cwd, env }: { cwd: string; env: Record<string, string | undefined> }): Promise<AuditVerdict> {
  const key = await loadAuditKey(resolvePaths({ cwd, env }).keysDir, { create: false });
  return verifyAuditFile(file, key);
}
